import type { FastifyReply, FastifyRequest } from 'fastify';
import { openStreams, startEventStream } from '../events/index.js';
import { AppError } from '../platform/errors/app-error.js';
import { ipBucket } from '../platform/net/ip.js';
import type { PaidSales, SaleOutcome } from './paid-watch.js';
import type { PayerSale } from './payer-sale.js';
import type { StreamsPerAddress } from './stream-limit.js';

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/** After its charge expired, a page still waits this long for a payment the payer's bank already sent. */
const EXPIRY_GRACE_MS = 5 * 60_000;

export interface PayerStreamDeps {
  paid: PaidSales;
  limit: StreamsPerAddress;
}

/**
 * The payer's page's Server-Sent Events for one sale: a single `paid` event (data: where to go next) when
 * it is paid, or `expired` when its charge can no longer be paid (its time is up, it was cancelled or
 * refused); the stream then ends. The sale is read
 * once, after the watch on the feed is in place, so a payment just before the stream opened is not missed.
 */
export async function openPayerStream(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PayerStreamDeps,
  saleId: string,
  read: () => Promise<PayerSale>,
): Promise<void> {
  const release = deps.limit.take(ipBucket(request.ip));
  if (!release) {
    throw new AppError('RATE_LIMITED', 'Too many payment pages open from this address', {
      limit: { max: deps.limit.max, retryAfterSeconds: 60 },
    });
  }
  let early: SaleOutcome | null = null;
  let onOutcome = (outcome: SaleOutcome) => {
    early ??= outcome;
  };
  let stopWatching: () => void;
  let state: PayerSale;
  try {
    stopWatching = await deps.paid.watch(saleId.toLowerCase(), (outcome) => onOutcome(outcome));
  } catch (err) {
    release();
    throw err;
  }
  try {
    state = await read();
  } catch (err) {
    stopWatching();
    release();
    throw err;
  }

  const res = reply.raw;
  let ended = false;
  let keepAlive: NodeJS.Timeout | undefined;
  let expiry: NodeJS.Timeout | undefined;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(keepAlive);
    clearTimeout(expiry);
    stopWatching();
    release();
    openStreams.delete(end);
    if (!res.destroyed) res.end();
  };
  const finish = (event: 'paid' | 'expired') => {
    if (ended) return;
    const data = event === 'paid' ? JSON.stringify({ redirectUrl: state.redirectUrl }) : '{}';
    res.write(`event: ${event}\ndata: ${data}\n\n`);
    end();
  };
  startEventStream(reply, end, 'no-store');
  res.write('retry: 3000\n\n');

  if (early === 'paid' || state.sale.paid) return finish('paid');
  if (early === 'ended' || state.sale.status !== 'PENDENTE') return finish('expired');
  // cancelled (by its merchant, or its session paid another way) or refused meanwhile: it can no longer be paid
  onOutcome = (outcome) => finish(outcome === 'paid' ? 'paid' : 'expired');
  keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const expiresAt = state.sale.chargeExpiresAt?.getTime();
  if (expiresAt !== undefined) {
    // a timer's delay is at most 2^31 - 1 ms; a charge is open an hour at most
    const wait = Math.min(Math.max(0, expiresAt + EXPIRY_GRACE_MS - Date.now()), 2 ** 31 - 1);
    expiry = setTimeout(() => finish('expired'), wait);
    expiry.unref();
  }
}

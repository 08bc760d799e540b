import { UsageError } from '../../platform/cli/command.js';
import { keyHeaders, type Target } from './client.js';

export interface RefundArgs {
  sale: string;
  amountCents: number | null;
  idempotencyKey: string | null;
}

export function parseRefundArgs(
  values: Record<string, string | boolean | undefined>,
  positionals: string[],
): RefundArgs {
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('name one sale to refund');
  const amount = values['amount-cents'];
  if (amount !== undefined && (typeof amount !== 'string' || !/^[1-9]\d{0,11}$/.test(amount))) {
    throw new UsageError(`--amount-cents must be a positive whole number of cents, got "${String(amount)}"`);
  }
  const key = values['idempotency-key'];
  if (key !== undefined && (typeof key !== 'string' || key.length < 1 || key.length > 255)) {
    throw new UsageError('--idempotency-key must have 1 to 255 characters');
  }
  return {
    sale: positionals[0]!,
    amountCents: amount === undefined ? null : Number(amount),
    idempotencyKey: typeof key === 'string' ? key : null,
  };
}

export interface RefundedSale {
  uuid: string;
  status: string;
  amount: number;
  /** What the sale's refunds made add up to (a refund still pending at the processor is not in it yet). */
  refundedAmount: number;
  /** The refund this request made (or found again, with the key). */
  refund: { id: string; amountCents: number; status: string };
  /** The gateway answered an earlier request's refund again (the same Idempotency-Key). */
  replayed: boolean;
}

/** `gateway refund`: POST /api/transactions/{id}/refund with the account's keys; the gateway's refusal throws. */
export async function refund(target: Target, args: RefundArgs): Promise<RefundedSale> {
  const path = `/api/transactions/${encodeURIComponent(args.sale)}/refund`;
  let res: Response;
  try {
    res = await fetch(`${target.url}${path}`, {
      method: 'POST',
      headers: {
        ...keyHeaders(target),
        'content-type': 'application/json',
        ...(args.idempotencyKey ? { 'idempotency-key': args.idempotencyKey } : {}),
      },
      body: JSON.stringify(args.amountCents === null ? {} : { amountCents: args.amountCents }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    throw new Error(`cannot reach the gateway at ${target.url}: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as Partial<Omit<RefundedSale, 'refund'>> & {
    refund?: { id?: unknown; amountCents?: unknown; status?: unknown };
    message?: string;
    error?: string;
  };
  if (res.status !== 202) {
    throw new Error(
      `the refund was refused (${res.status} ${body.error ?? ''}): ${body.message ?? 'no message'}`,
    );
  }
  return {
    uuid: String(body.uuid),
    status: String(body.status),
    amount: Number(body.amount),
    refundedAmount: Number(body.refundedAmount),
    refund: {
      id: String(body.refund?.id),
      amountCents: Number(body.refund?.amountCents),
      status: String(body.refund?.status),
    },
    replayed: res.headers.get('idempotent-replayed') === 'true',
  };
}

import { PspError } from '../payment-standards/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, validation } from '../platform/errors/app-error.js';
import type { Queue } from '../platform/jobs/queue.js';
import {
  type BoletoSales,
  cancelCharge,
  cancelExpiredCharges,
  createKeyedSale,
  type PaymentMethodPort,
  type PixChargeProcessor,
  type SaleOrigin,
  unavailable,
} from '../sales/index.js';
import { addressProblem } from '../webhooks/index.js';
import { paidAtBank } from './data.js';
import { BoletoInputError } from './errors.js';
import type { BoletoIssuer, BoletoSaleInput } from './issue.js';

/** The boletos module's errors in the routes' shapes: a refused request is 400, a PSP failure 502. */
export async function mapBoletoErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof BoletoInputError) throw validation(err.message);
    if (err instanceof PspError) {
      throw new AppError(
        'PROCESSOR_ERROR',
        `The payment processor failed to open the cobv: ${err.message.slice(0, 200)}`,
      );
    }
    throw err;
  }
}

/** The issuer with its errors mapped, for the boleto port and the payer pages (checkout). */
export function boletoSales(issuer: BoletoIssuer, allowPrivateTargets: boolean): BoletoSales {
  const checkPostback = async (url: string) => {
    if (allowPrivateTargets) return;
    const problem = await addressProblem(url, 'postbackUrl');
    if (problem) throw validation(problem);
  };
  return {
    check: (accountId: number, body: unknown) =>
      mapBoletoErrors(async () => {
        await issuer.check(accountId, body as BoletoSaleInput, { checkPostback });
      }),
    open: (
      accountId: number,
      body: unknown,
      bind: (tx: Queryable, saleId: number) => Promise<void>,
      origin?: SaleOrigin,
    ) =>
      mapBoletoErrors(() =>
        issuer.issue(accountId, body as BoletoSaleInput, { bind, origin, checkPostback }),
      ),
  };
}

/**
 * Boleto behind the payment-method port: the boleto híbrido issued (nosso número, barcode, its cobv opened at the
 * Pix processor) and its sale stored under the Idempotency-Key rules; cancelled and expired as its cobv is (read
 * back at the processor first). A boleto is paid by Pix or by a CNAB 240 return and refunded by Pix: it has no
 * refunder of its own, and one paid at a bank is not refunded through the gateway (no Pix to send back by).
 */
export function boletoMethod(deps: {
  db: Db;
  queue: Queue;
  issuer: BoletoIssuer;
  /** The Pix processor its cobv is opened at (PIX_PROCESSOR). */
  pixProcessor: PixChargeProcessor | null;
  /** Every Pix processor whose cobv may still be open, by name. */
  processors: ReadonlyMap<string, PixChargeProcessor>;
  allowPrivateTargets: boolean;
}): PaymentMethodPort {
  const { db, queue, issuer } = deps;
  const sales = issuer.available ? boletoSales(issuer, deps.allowPrivateTargets) : null;
  return {
    methods: ['BOLETO'],
    refunders: [],
    refundRefusal: async (saleId) =>
      (await paidAtBank(db, saleId))
        ? 'This boleto was paid at a bank (by its barcode, reported in a CNAB 240 return file): there is no Pix to send the money back by, so the gateway cannot refund it. Return it to the payer by your own means.'
        : null,
    check: async (accountId, request) => {
      if (!sales) throw unavailable('BOLETO');
      await sales.check(accountId, request);
    },
    open: async (accountId, request, key) => {
      if (!sales) throw unavailable('BOLETO');
      // the issue refuses a split that cannot be before the boleto's charge is opened at the PSP
      return createKeyedSale(db, accountId, key, request, (bind) => sales.open(accountId, request, bind));
    },
    cancel: (accountId, id) => cancelCharge(db, queue, deps.pixProcessor, accountId, id),
    refreshStatuses: (log) => cancelExpiredCharges(db, queue, deps.processors, log, ['BOLETO']),
  };
}

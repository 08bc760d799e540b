import type { Db } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import {
  type ChargeInput,
  cancelCharge,
  cancelExpiredCharges,
  checkPixCharge,
  createPixSale,
  type PaymentMethodPort,
  type PixChargeProcessor,
} from '../sales/index.js';

/**
 * Pix behind the payment-method port: a `cob` (or a `cobv` with a due date) opened at the processor PIX_PROCESSOR
 * names, then its sale stored (`createPixSale`); cancelled and expired by removing the charge there, read back
 * first; refunded by a devolução. It also cancels and expires Pix Automático cycles (their `cobr`).
 */
export function pixMethod(deps: {
  db: Db;
  queue: Queue;
  /** Who opens new charges (PIX_PROCESSOR); null: none configured (503). */
  processor: PixChargeProcessor | null;
  /**
   * Every Pix processor whose charges may still be open, by name: asked before one of them is cancelled, and
   * the refunder of the sales it charged.
   */
  processors: ReadonlyMap<string, PixChargeProcessor>;
  allowPrivateTargets: boolean;
}): PaymentMethodPort {
  const { db, queue, processor, processors } = deps;
  return {
    methods: ['PIX', 'PIX_AUTOMATICO'],
    refunders: [...processors.values()],
    open: async (accountId, request, key, log) => {
      // the schema validated it; shipping is a plain object
      const input = request as unknown as ChargeInput;
      const opened = await createPixSale(db, processor, accountId, input, key, {
        allowPrivateTargets: deps.allowPrivateTargets,
        log,
      });
      return opened;
    },
    check: (accountId, request) =>
      checkPixCharge(db, accountId, request as unknown as ChargeInput, deps.allowPrivateTargets),
    cancel: (accountId, id) => cancelCharge(db, queue, processor, accountId, id),
    refreshStatuses: (log) => cancelExpiredCharges(db, queue, processors, log, ['PIX', 'PIX_AUTOMATICO']),
  };
}

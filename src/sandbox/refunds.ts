import { AppError, conflict } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { refundedInFull } from '../sales/index.js';
import type { SandboxDeps } from './sales.routes.js';

const PAID_MEANWHILE =
  'this sale was paid while its refund was asked: a paid sale is refunded as the refund route refunds it, ask again';

/**
 * The sandbox's ESTORNADO. A paid sale is refunded in full as the refund route refunds it (refundedInFull: its
 * admission, refund rows, the fee given back); any other sale's is a status report (a disputed sale's, one
 * already refunded; the rest refused). A sale that became PAGO while this was asked (its payment settling at the
 * same moment) is refunded as a paid one then: never moved to ESTORNADO by the report alone, which would take
 * the parties' shares past the refund's admission.
 */
export async function refundInFull(
  deps: Pick<SandboxDeps, 'db' | 'queue' | 'settler'>,
  ref: PublicId,
  accountId: number,
): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const refunded = await refundedInFull(deps.db, deps.queue, accountId, ref);
    if (refunded) return refunded.public_json;
    try {
      const { sale } = await deps.settler.settle({
        ref,
        accountId,
        status: 'ESTORNADO',
        notFrom: { statuses: ['PAGO'], message: PAID_MEANWHILE },
      });
      return sale.public_json;
    } catch (err) {
      if (!(err instanceof AppError && err.message === PAID_MEANWHILE)) throw err;
    }
  }
  throw conflict(PAID_MEANWHILE);
}

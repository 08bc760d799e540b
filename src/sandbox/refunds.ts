import type { Db } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import type { Queue } from '../platform/jobs/queue.js';
import { refundedInFull, type SaleSettler } from '../sales/index.js';

/** The sale was found PAGO, locked, by the status report: it is refunded as a paid sale instead (409 if again and again). */
class PaidMeanwhile extends AppError {
  constructor() {
    super(
      'CONFLICT',
      'this sale was paid while its refund was asked: a paid sale is refunded as the refund route refunds it, ask again',
    );
  }
}

/**
 * The sandbox's ESTORNADO. A paid sale is refunded in full as the refund route refunds it (refundedInFull: its
 * admission, refund rows, the fee given back); any other sale's is a status report (a disputed sale's, one
 * already refunded; the rest refused). A sale that became PAGO while this was asked (its payment settling at the
 * same moment) is refunded as a paid one then: never moved to ESTORNADO by the report alone, which would take
 * the parties' shares past the refund's admission.
 */
export async function refundInFull(
  deps: { db: Db; queue: Queue; settler: SaleSettler },
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
        notFrom: { statuses: ['PAGO'], refusal: () => new PaidMeanwhile() },
      });
      return sale.public_json;
    } catch (err) {
      if (!(err instanceof PaidMeanwhile)) throw err;
    }
  }
  throw new PaidMeanwhile();
}

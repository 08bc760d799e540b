import type { Queryable } from '../../platform/db/db.js';
import type { SaleSettler } from '../settlement/settler.js';
import type { SaleStatus } from '../settlement/status-machine.js';
import type { TransitionResult } from '../settlement/transition.js';

/**
 * What every processor callback runs: the sale named by the processor's own reference moves through the
 * status machine, in a transaction it may share with other settlements (settler.ts).
 */
export function applyProcessorStatus(
  settler: SaleSettler,
  processor: string,
  externalTransactionId: string,
  status: SaleStatus,
  /** The callback's signature, when it came signed: a replay of an applied one changes nothing. */
  signature?: string,
): Promise<TransitionResult> {
  return settler.settle({
    ref: { kind: 'processor', processor, externalTransactionId },
    status,
    ...(signature !== undefined ? { signature } : {}),
  });
}

/** How often applied callbacks past their signatures' freshness window are deleted (started with the workers). */
export const CALLBACK_CLEANUP_EVERY_MS = 60_000;

/** Deletes recorded callbacks older than 10 minutes: a replay that old already fails its timestamp check. */
export async function deleteStaleCallbacks(db: Queryable): Promise<number> {
  const rows = await db.query(
    `DELETE FROM processor_callbacks WHERE received_at < now() - interval '10 minutes' RETURNING 1`,
  );
  return rows.length;
}

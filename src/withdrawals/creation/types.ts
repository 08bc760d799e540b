import type { Actor } from '../../audit/index.js';
import type { AppError } from '../../platform/errors/app-error.js';
import type { WithdrawalRow } from '../data.js';
import type { WithdrawalRequest } from '../request.js';

/** One withdrawal asked for in a creation batch, and what became of it. */
export interface WithdrawalItem {
  req: WithdrawalRequest;
  key: string | null;
  hash: string;
  /** Who asked (the audit log's withdrawal.created entry commits with the withdrawal). */
  actor?: Actor | undefined;
  /** Who asked, as an approval names them: a user's e-mail, or `api_key:<publicKey>`. */
  requestedBy?: string | undefined;
}

export interface Created {
  withdrawal: WithdrawalRow;
  replayed: boolean;
}

export type ItemOutcome = Created | AppError;

/** Whose balance a creation batch debits: the account's own (null) or one of its recipients'. */
export interface RecipientRef {
  id: number;
  uuid: string;
}

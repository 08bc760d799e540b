import { AppError, unauthorized } from '../platform/errors/app-error.js';
import type { CachedAccount } from './auth-cache.js';

/**
 * What a route moves (`config.moves`): charges and cashouts open only while the account is active, and so do a
 * card's tokenization (`card-token`: a card handed to the acquirer for a charge the account could not open) and
 * an anticipation (`anticipation`: money advanced on receivables, which a suspended account's sales may yet
 * lose to disputes). A sandbox sale (`sandbox-charge`) is open to an account waiting for review too (it tries its
 * integration before approval), never to a suspended one: its standing is checked first, as any charge's.
 */
export type MoneyMove = 'charge' | 'cashout' | 'card-token' | 'sandbox-charge' | 'anticipation';

export const closedAccount = () => unauthorized('This account is closed');

/**
 * The refusal for a request of an account in this standing (decisions.md, "The operators' console"): a closed
 * (or vanished) account is refused everywhere; a pending or suspended one only what moves money; else null.
 */
export function accountRefusal(account: CachedAccount | null, move: MoneyMove | undefined): AppError | null {
  if (!account || account.status === 'closed') return closedAccount();
  if (move === undefined || account.status === 'active') return null;
  const what = move === 'cashout' ? 'cashouts' : move === 'anticipation' ? 'anticipations' : 'charges';
  if (account.status === 'pending_review') {
    if (move === 'sandbox-charge') return null;
    return new AppError(
      'ACCOUNT_NOT_ACTIVE',
      `This account is waiting for review: ${what} open once it is approved (the panel's Cadastro page says which documents are missing)`,
    );
  }
  return new AppError('ACCOUNT_SUSPENDED', `This account is suspended: ${what} are refused`);
}

import { notifyAuthChange } from '../auth/index.js';
import { type MailOutbox, queueMail, renderMail } from '../mail/index.js';
import type { Queryable } from '../platform/db/db.js';
import { AppError, notFound } from '../platform/errors/app-error.js';
import { oneOf } from '../platform/literals/one-of.js';
import { nameForMail } from '../platform/text/names.js';

/**
 * An account's standing with the gateway (decisions.md, "The operators' console"):
 *   pending_review  a self sign-up: logs in, uses the sandbox, sends documents; no charges or cashouts
 *   active          everything
 *   suspended       reads, refunds and dispute answers; no charges or cashouts; withdrawals not yet sent wait
 *   closed          every key and session refused
 */
export const ACCOUNT_STATUSES = ['pending_review', 'active', 'suspended', 'closed'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const isAccountStatus = oneOf(ACCOUNT_STATUSES);

/** What the authentication hooks need of an account, cached per process with keys (auth-cache.ts). */
export interface AccountStanding {
  status: AccountStatus;
  payoutHold: boolean;
}

export async function accountStanding(q: Queryable, accountId: number): Promise<AccountStanding | null> {
  const [row] = await q.query<{ status: AccountStatus; payout_hold: boolean }>(
    'SELECT status, payout_hold FROM accounts WHERE id = $1',
    [accountId],
  );
  return row ? { status: row.status, payoutHold: row.payout_hold } : null;
}

export interface StatusChange {
  accountId: number;
  before: { status: AccountStatus; payoutHold: boolean; cardPaymentsPaused?: boolean };
  after: { status: AccountStatus; payoutHold: boolean; cardPaymentsPaused?: boolean };
  /** Change number for AuthCache.awaitPropagation once committed. */
  seq: number;
}

type Change =
  | { kind: 'status'; from: readonly AccountStatus[]; to: AccountStatus }
  | { kind: 'hold'; on: boolean };

/**
 * Changes an account's status or payout hold in the caller's transaction (row locked), tells every process's
 * key cache, and e-mails the owner. A status the account is not in → 409 INVALID_STATUS.
 */
export async function changeStanding(
  tx: Queryable,
  mail: MailOutbox,
  accountId: number,
  change: Change,
  reason: string | null,
  cause: string,
): Promise<StatusChange> {
  const [row] = await tx.query<{ status: AccountStatus; payout_hold: boolean; name: string; email: string }>(
    'SELECT status, payout_hold, name, email FROM accounts WHERE id = $1 FOR UPDATE',
    [accountId],
  );
  if (!row) throw notFound('Account not found');
  const before = { status: row.status, payoutHold: row.payout_hold };
  if (change.kind === 'status') {
    if (!change.from.includes(row.status)) {
      throw new AppError(
        'INVALID_STATUS',
        `The account is ${row.status}; this needs it ${change.from.join(' or ')}`,
      );
    }
    await tx.query(
      `UPDATE accounts SET status = $2, status_reason = $3, status_changed_at = now(), updated_at = now()
        WHERE id = $1`,
      [accountId, change.to, reason],
    );
  } else {
    if (row.payout_hold === change.on) {
      throw new AppError(
        'INVALID_STATUS',
        change.on ? "The account's payouts are held already" : "The account's payouts are not held",
      );
    }
    await tx.query(
      'UPDATE accounts SET payout_hold = $2, payout_hold_reason = $3, updated_at = now() WHERE id = $1',
      [accountId, change.on, change.on ? reason : null],
    );
  }
  const after =
    change.kind === 'status'
      ? { status: change.to, payoutHold: row.payout_hold }
      : { status: row.status, payoutHold: change.on };
  const seq = await notifyAuthChange(tx, `acct:${accountId}`);
  const message = standingMail(row.name, change, reason);
  await queueMail(tx, mail, { cause: `account-standing:${cause}`, to: row.email, ...message });
  return { accountId, before, after, seq };
}

function standingMail(accountName: string, change: Change, reason: string | null) {
  const shop = nameForMail(accountName, 'sua conta');
  const why = reason ? [`Motivo: ${reason}`] : [];
  const text = (subject: string, paragraphs: string[]) =>
    renderMail({ subject, paragraphs: ['Olá!', ...paragraphs, ...why] });
  if (change.kind === 'hold') {
    return change.on
      ? text('Saques em análise', [
          `Os saques de ${shop} passam a aguardar análise da nossa equipe antes de serem enviados. Nenhum valor se perde: cada saque fica guardado até ser liberado ou cancelado.`,
        ])
      : text('Saques liberados', [`Os saques de ${shop} voltaram a ser enviados normalmente.`]);
  }
  switch (change.to) {
    case 'active':
      return change.from.includes('pending_review') && !change.from.includes('suspended')
        ? text('Conta aprovada', [`A conta ${shop} foi aprovada: cobranças e saques estão liberados.`])
        : text('Conta reativada', [
            `A conta ${shop} foi reativada: cobranças e saques voltaram a funcionar.`,
          ]);
    case 'suspended':
      return text('Conta suspensa', [
        `A conta ${shop} foi suspensa: consultas, estornos e respostas a contestações continuam; novas cobranças e saques ficam bloqueados, e os saques ainda não enviados aguardam análise.`,
      ]);
    case 'closed':
      return change.from.includes('pending_review')
        ? text('Cadastro não aprovado', [`O cadastro de ${shop} não foi aprovado e a conta foi encerrada.`])
        : text('Conta encerrada', [
            `A conta ${shop} foi encerrada: as chaves de API e o acesso ao painel deixam de funcionar, as cobranças em aberto foram canceladas e as assinaturas, encerradas. O saldo continua seu: os recebíveis caem nas datas previstas e os saques já aceitos são concluídos; para receber o que restar depois disso, fale com o suporte do gateway, que combina o pagamento com você.`,
          ]);
    default:
      return text('Conta em análise', [`A conta ${shop} está em análise.`]);
  }
}

/** Whether the account's card payments are paused (a refusal ratio past the limit, until a risk operator clears it). */
export async function cardPaymentsPaused(q: Queryable, accountId: number): Promise<boolean> {
  const [row] = await q.query<{ paused: boolean }>(
    'SELECT card_payments_paused AS paused FROM accounts WHERE id = $1',
    [accountId],
  );
  return row?.paused ?? false;
}

/** Pauses the account's card payments in the caller's transaction; true when this call paused them. */
export async function pauseCardPayments(tx: Queryable, accountId: number): Promise<boolean> {
  const rows = await tx.query(
    'UPDATE accounts SET card_payments_paused = true WHERE id = $1 AND NOT card_payments_paused RETURNING id',
    [accountId],
  );
  return rows.length === 1;
}

/** A risk operator cleared the account: its card payments go on. */
export async function resumeCardPayments(tx: Queryable, accountId: number): Promise<boolean> {
  const rows = await tx.query(
    'UPDATE accounts SET card_payments_paused = false WHERE id = $1 AND card_payments_paused RETURNING id',
    [accountId],
  );
  return rows.length === 1;
}

import { createHash } from 'node:crypto';
import { validation } from '../platform/errors/app-error.js';
import { parseWithdrawalAmount } from './amount.js';
import { topLevelNumberTexts } from './number-text.js';
import { PIX_KEY_TYPES, type PixKeyType, pixKeyProblem } from './pix-key.js';

export interface WithdrawalRequest {
  amountCents: number;
  pixKey: string;
  pixKeyType: PixKeyType;
}

export interface CashoutBody {
  amount: unknown;
  pixKey: string;
  pixKeyType?: string;
}

/** Body rules that answer 400 (in the transaction body): amount format, PIX key type, length and per-type validity. */
export function parseWithdrawalRequest(body: CashoutBody, rawBody: string | undefined): WithdrawalRequest {
  const literal =
    typeof body.amount === 'number' && rawBody ? topLevelNumberTexts(rawBody).get('amount') : '';
  const amount = parseWithdrawalAmount(body.amount, literal);
  if (!amount.ok) throw validation(amount.reason);
  const type = body.pixKeyType ?? 'CPF';
  if (!(PIX_KEY_TYPES as readonly string[]).includes(type)) {
    throw validation(`pixKeyType must be one of ${PIX_KEY_TYPES.join(', ')}`);
  }
  const pixKeyType = type as PixKeyType;
  const problem = pixKeyProblem(body.pixKey, pixKeyType);
  if (problem) throw validation(problem);
  const pixKey = pixKeyType === 'CPF' || pixKeyType === 'CNPJ' ? body.pixKey.replace(/\D/g, '') : body.pixKey;
  return { amountCents: amount.cents, pixKey, pixKeyType };
}

/**
 * A recipient's cashout: as `parseWithdrawalRequest`, the PIX key the recipient's own when none is given. A
 * `pixKeyType` alone names no key: one other than the recipient's own key's type is refused rather than dropped.
 */
export function parseRecipientWithdrawalRequest(
  body: { amount: unknown; pixKey?: string; pixKeyType?: string },
  recipient: { pixKey: string; pixKeyType: string },
  rawBody: string | undefined,
): WithdrawalRequest {
  if (body.pixKey !== undefined) {
    return parseWithdrawalRequest(
      { amount: body.amount, pixKey: body.pixKey, pixKeyType: body.pixKeyType },
      rawBody,
    );
  }
  // the amount is judged first, as on every cashout
  const req = parseWithdrawalRequest(
    { amount: body.amount, pixKey: recipient.pixKey, pixKeyType: recipient.pixKeyType },
    rawBody,
  );
  if (body.pixKeyType !== undefined && !(PIX_KEY_TYPES as readonly string[]).includes(body.pixKeyType)) {
    throw validation(`pixKeyType must be one of ${PIX_KEY_TYPES.join(', ')}`);
  }
  if (body.pixKeyType !== undefined && body.pixKeyType !== recipient.pixKeyType) {
    throw validation(
      `pixKeyType ${JSON.stringify(body.pixKeyType.slice(0, 20))} needs a pixKey: without one the recipient's own key is paid, of type ${recipient.pixKeyType}`,
    );
  }
  return req;
}

/**
 * What makes two requests "the same body" for Idempotency-Key: the normalized request, and for a recipient's
 * cashout the recipient it pays out (the account's keys serve both routes).
 */
export function requestHash(req: WithdrawalRequest, recipientUuid?: string): string {
  const recipient = recipientUuid ? `|recipient:${recipientUuid}` : '';
  return createHash('sha256')
    .update(`${req.amountCents}|${req.pixKeyType}|${req.pixKey}${recipient}`)
    .digest('hex');
}

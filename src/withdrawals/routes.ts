import { Type } from 'typebox';
import { apiKeyActor } from '../audit/index.js';
import { merchantOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import {
  BusinessRuleErrorBody,
  EnvelopeErrorBody,
  errorAnswers,
  IpAccessErrorBody,
  TransactionErrorBody,
} from '../platform/http/error-schemas.js';
import { IdempotencyHeaders, parseIdempotencyKey } from '../platform/http/idempotency-key.js';
import { keepRawJson } from '../platform/http/json-body.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { parsePublicId } from '../platform/ids/public-ids.js';
import type { WithdrawalCreator } from './creation/creator.js';
import type { RecipientRef } from './creation/types.js';
import { ownedWithdrawal } from './lookup.js';
import { parseRecipientWithdrawalRequest, parseWithdrawalRequest } from './request.js';
import {
  CashoutBody,
  CREATION_ERRORS,
  IdParam,
  RecipientCashoutBody,
  WithdrawalCreated,
  WithdrawalLookup,
} from './schemas.js';
import { creationView, lookupView } from './views.js';

/** A cashout's errors: shapes D (the request), C (the business rules) and the 403 of either (or of the address). */
const CASHOUT_ERRORS = {
  ...errorAnswers(TransactionErrorBody, [400, 401, 500]),
  403: Type.Union([BusinessRuleErrorBody, IpAccessErrorBody, EnvelopeErrorBody]),
  ...errorAnswers(BusinessRuleErrorBody, [409, 422]),
};

/** A recipient the cashout may pay out: the account's own (else NOT_FOUND), with its PIX key. */
export type PayoutRecipient = RecipientRef & { pixKey: string; pixKeyType: string };

export interface CashoutRouteDeps {
  db: Db;
  creator: WithdrawalCreator;
  apiKey: AuthHook;
  /** The account's recipient of this id (split payments); another account's or none → NOT_FOUND. */
  recipientOf: (accountId: number, id: string) => Promise<PayoutRecipient>;
}

const security = [{ publicKey: [], privateKey: [] }];

export async function cashoutRoutes(app: Http, deps: CashoutRouteDeps): Promise<void> {
  keepRawJson(app);

  app.post(
    '/api/public/cashout',
    {
      config: {
        errorShape: 'transaction',
        keyScopeRefusal: 'business-rule',
        moves: 'cashout',
        errors: ['API_WITHDRAWAL_DISABLED_GLOBALLY', ...CREATION_ERRORS],
      },
      onRequest: deps.apiKey,
      schema: {
        summary: 'Send a PIX cashout (withdrawal) from the available balance',
        tags: ['public'],
        security,
        headers: IdempotencyHeaders,
        body: CashoutBody,
        response: { 201: WithdrawalCreated, ...CASHOUT_ERRORS },
      },
    },
    async (request, reply) => {
      const merchant = merchantOf(request);
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const req = parseWithdrawalRequest(request.body, request.rawBody?.toString('utf8'));
      const actor = apiKeyActor(request, merchant);
      const { withdrawal, replayed } = await deps.creator.create(
        merchant.accountId,
        req,
        key,
        actor,
        `api_key:${merchant.publicKey}`,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(creationView(withdrawal));
    },
  );

  app.post(
    '/api/recipients/:id/cashout',
    {
      config: {
        errorShape: 'transaction',
        keyScopeRefusal: 'business-rule',
        moves: 'cashout',
        errors: ['API_WITHDRAWAL_DISABLED_GLOBALLY', 'NOT_FOUND', ...CREATION_ERRORS],
      },
      onRequest: deps.apiKey,
      schema: {
        summary:
          "Pay out a recipient's available balance by PIX (split payments): the cashout's rules, limits and Idempotency-Key; the PIX key defaults to the recipient's",
        tags: ['public'],
        security,
        headers: IdempotencyHeaders,
        params: Type.Object({ id: Type.String({ description: 'Recipient id' }) }),
        body: RecipientCashoutBody,
        response: { 201: WithdrawalCreated, ...CASHOUT_ERRORS, 404: TransactionErrorBody },
      },
    },
    async (request, reply) => {
      const merchant = merchantOf(request);
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const recipient = await deps.recipientOf(merchant.accountId, request.params.id);
      const req = parseRecipientWithdrawalRequest(request.body, recipient, request.rawBody?.toString('utf8'));
      const { withdrawal, replayed } = await deps.creator.createForRecipient(
        merchant.accountId,
        { id: recipient.id, uuid: recipient.uuid },
        req,
        key,
        apiKeyActor(request, merchant),
        `api_key:${merchant.publicKey}`,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(creationView(withdrawal));
    },
  );

  app.get(
    '/api/public/cashout/:id',
    {
      config: { errorShape: 'transaction', errors: ['NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary: 'One withdrawal, by uuid or numeric id',
        tags: ['public'],
        security,
        params: IdParam,
        response: {
          200: WithdrawalLookup,
          401: TransactionErrorBody,
          403: IpAccessErrorBody,
          404: TransactionErrorBody,
          500: TransactionErrorBody,
        },
      },
    },
    async (request) => {
      const row = await ownedWithdrawal(
        deps.db,
        merchantOf(request).accountId,
        parsePublicId(request.params.id),
      );
      return lookupView(row);
    },
  );
}

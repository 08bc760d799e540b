import type { FastifyRequest } from 'fastify';
import { CardToken, CardTokenBody } from '../cards/index.js';
import { errorAnswers, TransactionErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, CardAttemptCheck, Http } from '../platform/http/types.js';
import { IdPath } from '../sales/index.js';
import type { CardPayInput, PayerCardInput, PayerPage, PublicCards } from './card-pay.js';
import { mapCheckoutErrors, mapPayerErrors } from './http.js';
import {
  CardPayment,
  InstallmentOptions,
  InstallmentsQuery,
  LinkCardBody,
  SessionCardBody,
  SlugPath,
} from './schemas.js';

const errors = {
  ...errorAnswers(TransactionErrorBody, [400, 404, 410, 429]),
};
const paying = { ...errors, 502: TransactionErrorBody, 503: TransactionErrorBody };

/**
 * The payer's card routes of a link (`/api/public/pay/:slug/…`) and a session (`/api/public/checkout/:id/…`):
 * the installments, the card tokenized for the page's account (the card number reaches only this route and the
 * acquirer, never a merchant key's), the token charged. No credentials; counted with the other payer routes
 * against the source address; error shape D.
 */
export function registerCardPayerRoutes(
  app: Http,
  cards: PublicCards,
  perIp: AuthHook | null,
  cardAttempt: CardAttemptCheck | null,
): void {
  const limited = perIp ? { onRequest: perIp } : {};
  const reading = ['GONE', 'NOT_FOUND', 'RATE_LIMITED'] as const;
  const paid = [...reading, 'PROCESSOR_ERROR', 'PROCESSOR_UNAVAILABLE', 'CARD_PAYMENTS_PAUSED'] as const;
  const sides = [
    {
      base: '/api/public/pay/:slug',
      what: 'a payment link',
      params: SlugPath,
      body: LinkCardBody,
      page: (r: FastifyRequest): PayerPage => ({
        kind: 'link',
        slug: (r.params as { slug: string }).slug,
      }),
    },
    {
      base: '/api/public/checkout/:id',
      what: 'a checkout session',
      params: IdPath,
      body: SessionCardBody,
      page: (r: FastifyRequest): PayerPage => ({ kind: 'session', id: (r.params as { id: string }).id }),
    },
  ];

  for (const side of sides) {
    app.get(
      `${side.base}/installments`,
      {
        config: { errorShape: 'transaction', errors: reading },
        ...limited,
        schema: {
          tags: ['checkout'],
          summary: `The card installments of ${side.what}: 1 up to its maximum, each installment's amount`,
          params: side.params,
          querystring: InstallmentsQuery,
          response: { 200: InstallmentOptions, ...errors },
        },
      },
      async (request) => {
        const given = (request.query as { amountCents?: string }).amountCents;
        const amount = given === undefined ? undefined : Number(given);
        const options = await mapCheckoutErrors(() => cards.installments(side.page(request), amount));
        return { options };
      },
    );

    app.post(
      `${side.base}/card-token`,
      {
        config: { errorShape: 'transaction', errors: paid },
        ...limited,
        schema: {
          tags: ['checkout'],
          summary: `Tokenize the payer's card for ${side.what} (its merchant's account; no key)`,
          description:
            'The card number and CVV go to the acquirer and are never stored or logged; the token is used once, within 15 minutes.',
          params: side.params,
          body: CardTokenBody,
          response: { 201: CardToken, ...paying },
        },
      },
      async (request, reply) => {
        const card = request.body as PayerCardInput;
        const token = await mapCheckoutErrors(() =>
          cards.tokenize(side.page(request), card, request.ip, async () => {
            if (cardAttempt) await cardAttempt(request, reply, card.number);
          }),
        );
        return reply.code(201).send(token);
      },
    );

    app.post(
      `${side.base}/card`,
      {
        // CONFLICT: a session's card payment while another of its card payments is still being decided
        config: { errorShape: 'transaction', errors: [...paid, 'CONFLICT'] },
        ...limited,
        schema: {
          tags: ['checkout'],
          summary: `Pay ${side.what} by credit card: charges the token (captured) in the installments chosen`,
          description:
            'Answers 201 with the sale whether approved (PAGO) or refused (RECUSADO, with refusalCode): a refused payer may tokenize again and retry. A checkout session takes one card payment at a time: another while one is being decided → 409 CONFLICT.',
          params: side.params,
          body: side.body,
          response: { 201: CardPayment, ...paying },
        },
      },
      async (request, reply) => {
        const payment = await mapPayerErrors(
          () => cards.pay(side.page(request), request.body as CardPayInput, request.log),
          request.log,
        );
        return reply.code(201).send(payment);
      },
    );
  }
}

import { errorAnswers, TransactionErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { IdPath } from '../sales/index.js';
import type { PublicBoletos } from './boleto-pay.js';
import { mapCheckoutErrors, mapPayerErrors } from './http.js';
import type { PublicCheckout } from './pay.js';
import {
  BoletoPayment,
  LinkBoletoBody,
  LinkPayBody,
  PixPayment,
  PublicLink,
  PublicSession,
  SessionBoletoBody,
  SessionPayBody,
  SlugPath,
} from './schemas.js';

const errors = {
  ...errorAnswers(TransactionErrorBody, [400, 404, 410, 429]),
};
const paying = { ...errors, 403: TransactionErrorBody, 502: TransactionErrorBody, 503: TransactionErrorBody };

/**
 * What the hosted pages call for the payer: no credentials, every request counted against its source address
 * (RATE_LIMIT_CHECKOUT_PER_IP a minute); error shape D. An unknown link or session is 404, one that takes no
 * more payments 410.
 */
export function registerPublicRoutes(
  app: Http,
  checkout: PublicCheckout,
  boletos: PublicBoletos,
  perIp: AuthHook | null,
): void {
  const limited = perIp ? { onRequest: perIp } : {};
  const reading = ['GONE', 'NOT_FOUND', 'RATE_LIMITED'] as const;
  // FORBIDDEN: a risk rule blocked the payment (the refused sale is the shop's to see)
  const starting = [...reading, 'FORBIDDEN', 'PROCESSOR_ERROR', 'PROCESSOR_UNAVAILABLE'] as const;

  app.get(
    '/api/public/pay/:slug',
    {
      config: { errorShape: 'transaction', errors: reading },
      ...limited,
      schema: {
        tags: ['checkout'],
        summary: "A payment link's page data: title, amount or range, methods, the merchant's name",
        params: SlugPath,
        response: { 200: PublicLink, ...errors },
      },
    },
    async (request) => mapCheckoutErrors(() => checkout.link(request.params.slug)),
  );

  app.post(
    '/api/public/pay/:slug',
    {
      config: { errorShape: 'transaction', errors: starting },
      ...limited,
      schema: {
        tags: ['checkout'],
        summary:
          'Pay a payment link by PIX: opens the charge and answers its copy-and-paste code and QR code; the one already open for this payer (payerToken) if there is one',
        params: SlugPath,
        body: LinkPayBody,
        response: { 201: PixPayment, ...paying },
      },
    },
    async (request, reply) => {
      const payment = await mapPayerErrors(
        () => checkout.payLink(request.params.slug, request.body, request.log, request.ip),
        request.log,
      );
      return reply.code(201).send(payment);
    },
  );

  app.get(
    '/api/public/checkout/:id',
    {
      config: { errorShape: 'transaction', errors: reading },
      ...limited,
      schema: {
        tags: ['checkout'],
        summary:
          "A checkout session's page data: amount, items, methods, and once paid where to send the payer",
        params: IdPath,
        response: { 200: PublicSession, ...errors },
      },
    },
    async (request) => mapCheckoutErrors(() => checkout.session(request.params.id)),
  );

  app.post(
    '/api/public/checkout/:id',
    {
      config: { errorShape: 'transaction', errors: starting },
      ...limited,
      schema: {
        tags: ['checkout'],
        summary:
          "Pay a checkout session by PIX (its amount and items as the merchant set them): the charge's code and QR code; the one already open for this payer (payerToken) if there is one",
        params: IdPath,
        body: SessionPayBody,
        response: { 201: PixPayment, ...paying },
      },
    },
    async (request, reply) => {
      const payment = await mapPayerErrors(
        () => checkout.paySession(request.params.id, request.body, request.log, request.ip),
        request.log,
      );
      return reply.code(201).send(payment);
    },
  );

  app.post(
    '/api/public/pay/:slug/boleto',
    {
      config: { errorShape: 'transaction', errors: starting },
      ...limited,
      schema: {
        tags: ['checkout'],
        summary:
          'Pay a payment link by boleto (with the payer’s address): issues a boleto híbrido due in 3 days and answers its linha digitável, PDF and Pix',
        params: SlugPath,
        body: LinkBoletoBody,
        response: { 201: BoletoPayment, ...paying },
      },
    },
    async (request, reply) => {
      const payment = await mapPayerErrors(
        () => boletos.payLink(request.params.slug, request.body, request.ip),
        request.log,
      );
      return reply.code(201).send(payment);
    },
  );

  app.post(
    '/api/public/checkout/:id/boleto',
    {
      config: { errorShape: 'transaction', errors: starting },
      ...limited,
      schema: {
        tags: ['checkout'],
        summary:
          'Pay a checkout session by boleto (with the payer’s address): a boleto híbrido of its amount and items, due in 3 days',
        params: IdPath,
        body: SessionBoletoBody,
        response: { 201: BoletoPayment, ...paying },
      },
    },
    async (request, reply) => {
      const payment = await mapPayerErrors(
        () => boletos.paySession(request.params.id, request.body, request.ip),
        request.log,
      );
      return reply.code(201).send(payment);
    },
  );
}

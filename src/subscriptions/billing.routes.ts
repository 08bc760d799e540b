import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from 'typebox';
import { CardTokenBody } from '../cards/index.js';
import { AppError } from '../platform/errors/app-error.js';
import { PROJECT_ROOT } from '../platform/files/project-root.js';
import { noticePage, withPageData } from '../platform/html/page-fill.js';
import { TransactionErrorBody } from '../platform/http/error-schemas.js';
import { pageLimit, sendPage, TOO_MANY_REQUESTS_PAGE } from '../platform/http/page-template.js';
import type { AuthHook, CardAttemptCheck, Http } from '../platform/http/types.js';
import type { CustomerPage } from './customer-page.js';
import { BillingPage } from './schemas.js';

/** The page's HTML, built beside the checkout page (checkout-page/billing.html) and sharing its assets. */
const PAGE = path.join(PROJECT_ROOT, 'dist', 'checkout-page', 'billing.html');

const TokenPath = Type.Object({ token: Type.String({ maxLength: 64 }) });
const errors = { 400: TransactionErrorBody, 404: TransactionErrorBody, 429: TransactionErrorBody };

/** Said on the page while the gateway's sandbox is on. */
const TEST_MODE_BANNER =
  '<aside class="test-mode" aria-label="Modo de teste"><strong>Modo de teste.</strong> Nenhuma cobrança desta página é real.</aside>';
const NOT_FOUND = {
  title: 'Assinatura não encontrada',
  text: 'Confira se o endereço está completo, como veio no e-mail. Se o problema continuar, fale com a loja.',
};

/**
 * The customer's page `/billing/<token>` and its routes under `/api/public/billing/<token>` (the token is the
 * key; pt-BR; each source address limited as the checkout's payers are).
 */
export async function billingPageRoutes(
  app: Http,
  deps: {
    page: CustomerPage;
    perIp: AuthHook | null;
    cardAttempt: CardAttemptCheck | null;
    testMode: boolean;
  },
): Promise<void> {
  const template = existsSync(PAGE) ? readFileSync(PAGE, 'utf8') : null;
  const limited = deps.perIp ? { onRequest: deps.perIp } : {};
  const D = { errorShape: 'transaction' as const, errors: ['NOT_FOUND', 'RATE_LIMITED'] as const };
  const schema = { tags: ['checkout'] };

  app.get<{ Params: { token: string } }>(
    '/billing/:token',
    {
      // the subscriber's browser is shown a page, in Portuguese, when its address asked too often
      ...pageLimit(deps.perIp, template, deps.testMode ? TEST_MODE_BANNER : ''),
      config: { errorShape: 'transaction' as const, errors: ['NOT_FOUND'] as const },
      schema: {
        ...schema,
        summary: "The customer's subscription page (pt-BR): change the card, cancel at the period's end",
        produces: ['text/html'],
        params: TokenPath,
        response: {
          200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
          404: { description: 'No such page', content: { 'text/html': { schema: { type: 'string' } } } },
          429: TOO_MANY_REQUESTS_PAGE,
        },
      },
    },
    async (request, reply) =>
      sendPage(reply, template, async (page) => {
        const banner = deps.testMode ? TEST_MODE_BANNER : '';
        try {
          const billing = await deps.page.view(request.params.token);
          return { status: 200, html: withPageData(page, { token: request.params.token, billing }, banner) };
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
          return { status: 404, html: noticePage(page, NOT_FOUND, banner) };
        }
      }),
  );

  app.get(
    '/api/public/billing/:token',
    {
      ...limited,
      config: D,
      schema: {
        ...schema,
        summary: "The customer's subscription and its sales",
        params: TokenPath,
        response: { 200: BillingPage, ...errors },
      },
    },
    async (request) => deps.page.view(request.params.token),
  );

  app.post(
    '/api/public/billing/:token/card',
    {
      ...limited,
      config: {
        errorShape: 'transaction' as const,
        errors: ['NOT_FOUND', 'RATE_LIMITED', 'INVALID_STATUS', 'ACCOUNT_SUSPENDED', 'ACCOUNT_NOT_ACTIVE'],
      },
      schema: {
        ...schema,
        summary:
          'Another card for the subscription (tokenized at the acquirer and kept on file; a charge behind is tried at once); refused while the account is suspended or waiting for review (403)',
        params: TokenPath,
        body: CardTokenBody,
        response: { 200: BillingPage, 403: TransactionErrorBody, 409: TransactionErrorBody, ...errors },
      },
    },
    async (request, reply) => {
      return deps.page.changeCard(request.params.token, request.body, request.ip, async () => {
        if (deps.cardAttempt) await deps.cardAttempt(request, reply, request.body.number);
      });
    },
  );

  app.post(
    '/api/public/billing/:token/cancel',
    {
      ...limited,
      config: D,
      schema: {
        ...schema,
        summary: 'Cancel the subscription when its current period ends',
        params: TokenPath,
        response: { 200: BillingPage, ...errors },
      },
    },
    async (request) => deps.page.cancelAtPeriodEnd(request.params.token),
  );
}

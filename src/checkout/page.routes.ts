import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { PROJECT_ROOT } from '../platform/files/project-root.js';
import { pageLimit, sendPage, TOO_MANY_REQUESTS_PAGE } from '../platform/http/page-template.js';
import { PAGE_HEADERS } from '../platform/http/panel-site.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { CheckoutGone, CheckoutNotFound } from './errors.js';
import { loadPageAssets } from './page-assets.js';
import { type PageData, pageHtml, TEST_MODE_BANNER, type Unpayable, unpayableHtml } from './page-html.js';
import type { PublicCheckout } from './pay.js';

/** Where `vite build` puts the page (checkout-page/vite.config.ts). */
const SITE = path.join(PROJECT_ROOT, 'dist', 'checkout-page');
/** The page's scripts and styles, under the base of its Vite build. */
const ASSETS_PREFIX = '/checkout-page/assets/';

/**
 * The payer's hosted pages, `PUBLIC_URL/pay/<slug>` and `PUBLIC_URL/checkout/<id>`: one HTML page (the
 * checkout-page/ build) carrying the link's or session's public data, or a pt-BR page saying why there is
 * nothing to pay with 404 (unknown) or 410 (expired, used up, turned off); counted by the payer's per-address
 * limit. Its hashed assets are cached for good.
 */
export function registerPageRoutes(
  app: Http,
  checkout: PublicCheckout,
  perIp: AuthHook | null,
  /** SANDBOX on: every page says it is a test. */
  testMode = false,
): void {
  const template = existsSync(path.join(SITE, 'index.html'))
    ? readFileSync(path.join(SITE, 'index.html'), 'utf8')
    : null;
  // a payer's browser is shown a page, in Portuguese, when its address asked too often
  const limited = pageLimit(perIp, template, testMode ? TEST_MODE_BANNER : '');
  const page = {
    description:
      'The page, in Portuguese; a pt-BR page saying why there is nothing to pay with 404 (unknown) or 410 (expired, used up, turned off)',
    content: { 'text/html': { schema: { type: 'string' } } },
  };
  const options = (summary: string, params: ReturnType<typeof Type.Object>) => ({
    config: { errorShape: 'transaction' as const },
    ...limited,
    schema: {
      tags: ['checkout'],
      summary,
      produces: ['text/html'],
      params,
      response: { 200: page, 429: TOO_MANY_REQUESTS_PAGE },
    },
  });

  const send = (reply: FastifyReply, kind: Unpayable['kind'], data: () => Promise<PageData>) =>
    sendPage(reply, template, async (page) => {
      try {
        return { status: 200, html: pageHtml(page, await data(), testMode) };
      } catch (err) {
        if (err instanceof CheckoutNotFound) {
          return { status: 404, html: unpayableHtml(page, { kind, why: 'not_found' }, testMode) };
        }
        if (err instanceof CheckoutGone) {
          return { status: 410, html: unpayableHtml(page, { kind, why: err.reason }, testMode) };
        }
        throw err;
      }
    });

  app.get<{ Params: { slug: string } }>(
    '/pay/:slug',
    options("The payer's hosted page of a payment link", Type.Object({ slug: Type.String() })),
    (request, reply) =>
      send(reply, 'link', async () => ({
        kind: 'link',
        slug: request.params.slug,
        link: await checkout.link(request.params.slug),
      })),
  );
  app.get<{ Params: { id: string } }>(
    '/checkout/:id',
    options("The payer's hosted page of a checkout session", Type.Object({ id: Type.String() })),
    (request, reply) =>
      send(reply, 'session', async () => ({
        kind: 'session',
        session: await checkout.session(request.params.id),
      })),
  );

  for (const [name, asset] of loadPageAssets(path.join(SITE, 'assets'))) {
    app.get(`${ASSETS_PREFIX}${name}`, { schema: { hide: true } }, (request, reply) => {
      for (const [header, value] of Object.entries(PAGE_HEADERS)) reply.header(header, value);
      // hashed names change with their content
      reply.header('cache-control', 'public, max-age=31536000, immutable').header('vary', 'accept-encoding');
      reply.type(asset.type);
      if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
        return reply.header('content-encoding', 'gzip').send(asset.gzip);
      }
      return reply.send(asset.raw);
    });
  }
}

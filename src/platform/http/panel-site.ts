import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { PROJECT_ROOT } from '../files/project-root.js';
import type { Http } from './types.js';

/** Where `vite build` puts the panel (panel/vite.config.ts). */
const SITE = path.join(PROJECT_ROOT, 'dist', 'panel-site');

/**
 * The page's own security headers: scripts and styles only from this origin (no inline script), never
 * framed, no referrer sent away, no MIME sniffing. The JSON API keeps its own headers. The payer's hosted
 * checkout page (src/checkout) is sent with the same.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** docs/quickstart.md, which the panel's Integrações page links to. */
const QUICKSTART = path.join(PROJECT_ROOT, 'docs', 'quickstart.md');

/**
 * The merchant panel at `/` and the operators' console at `/ops`: the static build of panel/, served by the
 * gateway itself; and the quickstart.
 */
export async function panelSite(app: Http): Promise<void> {
  app.get(
    '/quickstart.md',
    {
      schema: {
        tags: ['operations'],
        summary: 'The quickstart: from npm install to a paid test charge, a verified webhook and a cashout',
        produces: ['text/plain'],
        response: {
          200: { description: 'Markdown', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    async (_request, reply) =>
      reply
        .header('x-content-type-options', 'nosniff')
        .type('text/plain; charset=utf-8')
        .send(await readFile(QUICKSTART, 'utf8')),
  );
  if (!existsSync(path.join(SITE, 'index.html'))) {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The panel is not built: run `npm run build`.\n'),
    );
    return;
  }
  // the operators' console: the panel's second page (panel/ops.html), its API under /api/ops
  app.get('/ops', { schema: { hide: true } }, async (_request, reply) => {
    for (const [name, value] of Object.entries(PAGE_HEADERS)) reply.header(name, value);
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(await readFile(path.join(SITE, 'ops.html'), 'utf8'));
  });
  // typed or linked with a trailing slash: the console's one address
  app.get('/ops/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/ops', 301));
  await app.register(fastifyStatic, {
    root: SITE,
    prefix: '/',
    index: 'index.html',
    wildcard: false,
    schemaHide: true,
    setHeaders: (res, file) => {
      for (const [name, value] of Object.entries(PAGE_HEADERS)) res.header(name, value);
      // hashed asset names change with their content; the page itself is always fetched fresh
      res.header(
        'cache-control',
        file.endsWith('index.html') ? 'no-store' : 'public, max-age=31536000, immutable',
      );
    },
  });
}

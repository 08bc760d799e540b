import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { noticePage } from '../html/page-fill.js';
import { PAGE_HEADERS } from './panel-site.js';
import type { AuthHook } from './types.js';

/**
 * Answers a page: the pages' headers (CSP, no framing, no caching), 503 in plain words when the page was not
 * built, else the status and HTML `render` gives for the template.
 */
export async function sendPage(
  reply: FastifyReply,
  template: string | null,
  render: (template: string) => Promise<{ status: number; html: string }>,
): Promise<FastifyReply> {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) reply.header(name, value);
  reply.header('cache-control', 'no-store');
  if (!template) {
    return reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .send('The page is not built: run `npm run build`.\n');
  }
  const { status, html } = await render(template);
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** What a person whose address asked too often reads (a page counted per address, a minute at a time). */
export function tooManyRequests(seconds: number): { title: string; text: string } {
  return {
    title: 'Muitas tentativas em pouco tempo',
    text: `Espere ${seconds} ${seconds === 1 ? 'segundo' : 'segundos'} e abra esta página de novo. Nada foi cobrado.`,
  };
}

/**
 * The per-address limit of a page a person opens in a browser (a payer's, a subscriber's): past it, a pt-BR
 * page asking to wait (429, with the limit's Retry-After), not the JSON an API route answers.
 */
export function pageLimit(
  perIp: AuthHook | null,
  template: string | null,
  banner: string,
): { onRequest?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> } {
  if (!perIp) return {};
  return {
    onRequest: async (request, reply) => {
      try {
        await perIp(request, reply);
        return undefined;
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'RATE_LIMITED')) throw err;
        const seconds = Number(reply.getHeader('retry-after')) || 60;
        return sendPage(reply, template, async (page) => ({
          status: 429,
          html: noticePage(page, tooManyRequests(seconds), banner),
        }));
      }
    },
  };
}

/** The OpenAPI answer of such a page past its limit. */
export const TOO_MANY_REQUESTS_PAGE = {
  description:
    'A pt-BR page asking to wait: this address asked more often than its limit allows in a minute (Retry-After says how long)',
  content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html>…Muitas tentativas…' } },
};

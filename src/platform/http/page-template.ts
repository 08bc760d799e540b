import type { FastifyReply } from 'fastify';
import { PAGE_HEADERS } from './panel-site.js';

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

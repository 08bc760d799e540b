import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/config/config.js';
import { createHttp } from '../../../src/platform/http/server.js';
import type { Http } from '../../../src/platform/http/types.js';
import { createLogger } from '../../../src/platform/observability/logger.js';

let app: Http;
beforeAll(async () => {
  app = await createHttp(
    loadConfig({ ...process.env, NODE_ENV: 'test' }, { secrets: false }),
    createLogger('silent'),
  );
  app.post(
    '/t',
    {
      schema: {
        headers: Type.Object({ 'X-Thing': Type.String({ minLength: 2 }) }),
        body: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
        response: { 200: Type.Object({ n: Type.Integer(), hidden: Type.Optional(Type.Never()) }) },
      },
    },
    async (request) => ({ ...(request.body as { n: number }), extra: 'dropped' }) as { n: number },
  );
  await app.ready();
});
afterAll(() => app?.close());

describe('route schemas compiled by their first request', () => {
  it('validate as Fastify compiles them: header names case-insensitive, bodies checked, errors named', async () => {
    const ok = await app.inject({
      method: 'POST',
      url: '/t',
      headers: { 'x-thing': 'ab' },
      payload: { n: 1 },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ n: 1 }); // the response schema's serializer drops what it does not name
    const shortHeader = await app.inject({
      method: 'POST',
      url: '/t',
      headers: { 'x-thing': 'a' },
      payload: { n: 1 },
    });
    expect(shortHeader.statusCode).toBe(400);
    expect(shortHeader.body).toContain('x-thing');
    const badBody = await app.inject({
      method: 'POST',
      url: '/t',
      headers: { 'x-thing': 'ab' },
      payload: { n: 'x' },
    });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.body).toContain('body/n');
  });

  it('compileAll compiles what is still waiting', () => {
    expect(() => app.compileSchemas()).not.toThrow();
  });
});

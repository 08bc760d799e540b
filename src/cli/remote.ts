import { Type } from 'typebox';
import { constantTimeEqual } from '../auth/secrets.js';
import type { Platform } from '../platform/context.js';
import { AppError } from '../platform/errors.js';
import type { Http } from '../platform/http.js';
import { canonicalIp } from '../platform/ip.js';
import { execute } from './execute.js';

/**
 * With the embedded database only the server process may open the files, so the CLI sends its argv here.
 * Reachable only from loopback, with the token the server wrote to DATA_DIR/gateway.lock (mode 0600).
 */
export async function internalCliRoutes(
  app: Http,
  opts: { platform: Platform; token: () => string },
): Promise<void> {
  app.post(
    '/internal/cli',
    {
      schema: {
        hide: true,
        body: Type.Object({ argv: Type.Array(Type.String(), { maxItems: 64 }) }),
      },
    },
    async (request) => {
      const ip = canonicalIp(request.socket.remoteAddress ?? '');
      const token = opts.token();
      const auth = request.headers.authorization ?? '';
      if ((ip !== '127.0.0.1' && ip !== '::1') || !token || !constantTimeEqual(auth, `Bearer ${token}`)) {
        throw new AppError('NOT_FOUND', 'Not found');
      }
      const { db, config } = opts.platform;
      return execute(request.body.argv, { db, config });
    },
  );
}

export async function executeRemote(url: string, token: string, argv: readonly string[]) {
  const { request } = await import('undici');
  const res = await request(`${url}/internal/cli`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ argv }),
  });
  if (res.statusCode !== 200)
    throw new Error(`the running server refused the command (HTTP ${res.statusCode})`);
  return (await res.body.json()) as { exitCode: number; stdout: string; stderr: string };
}

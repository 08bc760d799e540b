import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import type { Http } from './http.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request body exactly as received, on routes registered after keepRawJson (amounts, signatures). */
    rawBody?: Buffer;
  }
}

/**
 * Replaces the JSON parser inside one encapsulated plugin with one that keeps the body bytes, so money is
 * parsed from the decimal text the client sent (JSON.parse has already rounded it to a float) and
 * signatures are checked over the exact bytes received.
 */
export function keepRawJson(app: Http): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
      const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      request.rawBody = raw;
      const text = raw.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch {
        done(new AppError('VALIDATION_ERROR', 'Body is not valid JSON'));
      }
    },
  );
}

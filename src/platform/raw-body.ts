import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import type { Http } from './http.js';
import { exceedsDepth, hasLoneSurrogate, MAX_JSON_DEPTH } from './json-depth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request body exactly as received, on routes registered after keepRawJson (amounts, signatures). */
    rawBody?: Buffer;
  }
}

type Done = (err: Error | null, value?: unknown) => void;

/**
 * Fastify's own JSON parser (it refuses `__proto__` / `constructor.prototype` poisoning), except that an empty
 * body is no body (clients commonly send `Content-Type: application/json` on bodiless POSTs: logout, key
 * creation, resend, and those must not fail with 400), that nesting is bounded before parsing, and that a
 * string with half a surrogate pair (no text at all) is refused here rather than by the database (a 500).
 */
function jsonParser(app: Http) {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, text: string, done: Done) => {
    if (text.trim() === '') return done(null, undefined);
    if (exceedsDepth(text)) {
      return done(new AppError('VALIDATION_ERROR', `Body nests deeper than ${MAX_JSON_DEPTH} levels`));
    }
    void parse(request, text, (err, value) => {
      if (err) return done(new AppError('VALIDATION_ERROR', 'Body is not valid JSON'));
      if (hasLoneSurrogate(text, value)) {
        return done(
          new AppError('VALIDATION_ERROR', 'Body holds a \\u escape of half a UTF-16 surrogate pair'),
        );
      }
      done(null, value);
    });
  };
}

/** Installs the lenient-but-safe JSON parser for every route. */
export function installJsonParser(app: Http): void {
  const parse = jsonParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    parse(request, body as string, done),
  );
}

/**
 * Replaces the JSON parser inside one encapsulated plugin with one that also keeps the body bytes, so money
 * is parsed from the decimal text the client sent (JSON.parse has already rounded it to a float) and
 * signatures are checked over the exact bytes received.
 */
export function keepRawJson(app: Http): void {
  const parse = jsonParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    request.rawBody = raw;
    parse(request, raw.toString('utf8'), done);
  });
}

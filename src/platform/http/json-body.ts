import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { MAX_JSON_DEPTH, parsedMembers, repeatedKey, scanJson } from './json-depth.js';
import type { Http } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request body exactly as received, on routes registered after keepRawJson (amounts, signatures). */
    rawBody?: Buffer;
  }
}

type Done = (err: Error | null, value?: unknown) => void;

/** A `\uD800`–`\uDFFF` escape: the only way JSON text decoded from UTF-8 can carry a UTF-16 surrogate alone. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const LONE_SURROGATE = /\p{Cs}/u;
/** Where processors call back (their notifications of Pix received, payouts, card changes). */
const PROCESSOR_CALLBACKS = '/api/providers/';
/** A `\u0000` escape: the only way JSON text can carry a NUL (a raw control character is not JSON). */
const NUL_ESCAPE = /\\u0000/;
const NUL = /\0/;

/**
 * True when a parsed JSON value holds a string (or key) that `pattern` matches. Walks only bodies whose text
 * has `marker` at all (the escape that is the one way such a character reaches the value); the depth was
 * bounded before parsing.
 */
function holds(text: string, value: unknown, marker: RegExp, pattern: RegExp): boolean {
  if (!marker.test(text)) return false;
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return pattern.test(v);
    if (Array.isArray(v)) return v.some(walk);
    if (v !== null && typeof v === 'object') {
      return Object.entries(v).some(([k, x]) => pattern.test(k) || walk(x));
    }
    return false;
  };
  return walk(value);
}

/** True when `text` is JSON (JSON.parse reads it; only asked once the guarded parser has refused it). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A key written twice in one object (`{"amount": 1, "amount": 99999}`): JSON.parse keeps the last, a proxy, a
 * log reader or a signature checker in front may read the first. Refused rather than guessed.
 */
function repeated(text: string): AppError {
  const key = repeatedKey(text) ?? '';
  const shown = JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);
  return new AppError('VALIDATION_ERROR', `Body has the key ${shown} more than once in one object`);
}

/**
 * Fastify's own JSON parser (it refuses `__proto__` / `constructor.prototype` poisoning), except that an empty
 * body is no body (clients commonly send `Content-Type: application/json` on bodiless POSTs: logout, key
 * creation, resend, and those must not fail with 400), that nesting is bounded before parsing, that a
 * string with half a surrogate pair (no text at all) or a NUL is refused here rather than by the database (a
 * 500, or stored where the database sees no text), and that a key repeated in one object is refused (counted
 * in the same pass as the depth, named only if found).
 */
function jsonParser(app: Http) {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, text: string, done: Done) => {
    const unreadable = encodingProblem(request);
    if (unreadable) return done(new AppError('VALIDATION_ERROR', unreadable));
    if (text.trim() === '') return done(null, undefined);
    const members = scanJson(text);
    if (members < 0) {
      return done(new AppError('VALIDATION_ERROR', `Body nests deeper than ${MAX_JSON_DEPTH} levels`));
    }
    void parse(request, text, (err, value) => {
      if (err) {
        // valid JSON the poisoning guard refused is not "not valid JSON": say which key it is
        const forbidden = isJson(text);
        return done(
          new AppError(
            'VALIDATION_ERROR',
            forbidden
              ? 'Body has a "__proto__" key (or a "constructor" key holding "prototype"), which is not accepted'
              : 'Body is not valid JSON',
          ),
        );
      }
      if (holds(text, value, SURROGATE_ESCAPE, LONE_SURROGATE)) {
        return done(
          new AppError('VALIDATION_ERROR', 'Body holds a \\u escape of half a UTF-16 surrogate pair'),
        );
      }
      // refused here for every field, as the database refuses it in those it sees as text (server.ts): a NUL
      // in an item's title or a metadata value would reach receivers, exports and processors. Not on a
      // processor's callback: it judges entry by entry, so a bad entry never loses the good ones beside it
      const callback = (request.routeOptions?.url ?? request.url).startsWith(PROCESSOR_CALLBACKS);
      if (!callback && holds(text, value, NUL_ESCAPE, NUL)) {
        return done(new AppError('VALIDATION_ERROR', 'Text fields must not contain NUL characters'));
      }
      if (members > 0 && parsedMembers(value) !== members) return done(repeated(text));
      done(null, value);
    });
  };
}

/**
 * Bodies are read as UTF-8 text as sent: a compressed body or a UTF-16/32 one would be parsed as garbage
 * ("not valid JSON", or worse, valid JSON of the wrong text), so both are refused with what to send instead.
 */
function encodingProblem(request: FastifyRequest): string | null {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    return `Content-Encoding ${encoding} is not accepted: send the JSON body uncompressed`;
  }
  // only charsets whose JSON text is not ASCII bytes are refused: a PSP or a bank labelling its ASCII JSON
  // `us-ascii` or `iso-8859-1` sends what UTF-8 reads the same
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
  if (charset && /^(utf-?(16|32)|ucs-?[24])/i.test(charset)) {
    return `Content-Type charset must be utf-8, got ${charset}`;
  }
  return null;
}

/**
 * Installs the lenient-but-safe JSON parser for every route, and JSON as the only body type: Fastify's
 * text/plain parser would hand a route a string its schema then calls "not an object".
 */
export function installJsonParser(app: Http): void {
  const parse = jsonParser(app);
  app.removeContentTypeParser('text/plain');
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

/** preValidation for bodiless POSTs: a client may send no body, which validates as an empty object. */
export async function emptyBodyIsObject(request: { body?: unknown }): Promise<void> {
  request.body ??= {};
}

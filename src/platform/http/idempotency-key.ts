import { Type } from 'typebox';
import { AppError } from '../errors/app-error.js';

/** The Idempotency-Key header as routes that take one declare it. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: '1–255 visible ASCII characters; kept 24 h' })),
});

const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/;

/** decisions.md: an Idempotency-Key outside 1–255 visible ASCII characters → 400 (in the transaction body). */
export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (typeof header !== 'string' || !VISIBLE_ASCII.test(header)) {
    throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  return header;
}

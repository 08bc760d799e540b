import { Type } from 'typebox';
import { AppError, type ErrorShape } from './errors.js';

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

/** 422 IDEMPOTENCY_KEY_REUSED: in the business-rule body on the cashout routes, or the body a route gives all its errors. */
export const keyReused = (shape?: ErrorShape) =>
  new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was already used with a different request body',
    {},
    shape,
  );

export const inUse = (shape?: ErrorShape) =>
  new AppError(
    'IDEMPOTENCY_KEY_IN_USE',
    'A request with this Idempotency-Key is still being processed',
    {},
    shape,
  );

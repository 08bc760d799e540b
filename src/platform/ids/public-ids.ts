import { notFound, validation } from '../errors/app-error.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIGITS = /^\d+$/;

export type PublicId = { kind: 'uuid'; uuid: string } | { kind: 'numeric'; id: number };

/**
 * A path id is either a uuid (recommended) or the legacy numeric id. Anything else → null (400). Digits that
 * are no id as the gateway writes one (0, 007, beyond 2^53, where a number would be read as a neighbour) are
 * still a number, so they are a numeric id that names no row: id 0 (ids start at 1), found nowhere (404).
 */
export function parsePublicId(raw: string): PublicId | null {
  if (UUID.test(raw)) return { kind: 'uuid', uuid: raw.toLowerCase() };
  if (!DIGITS.test(raw)) return null;
  const id = Number(raw);
  return { kind: 'numeric', id: Number.isSafeInteger(id) && String(id) === raw ? id : 0 };
}

export function isUuid(raw: string): boolean {
  return UUID.test(raw);
}

/**
 * A numeric path id already matched by its schema's digits pattern, as a number. Ids beyond 2^53 cannot be
 * read without losing precision (9007199254740993 would become …992, another row's id): none exists, so 404.
 */
export function numericPathId(raw: string, notFoundMessage: string): number {
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || String(id) !== raw) throw notFound(notFoundMessage);
  return id;
}

/** A sale's id from a route's path: a 400 (validation) when it is neither a uuid nor a numeric id. */
export function saleIdParam(raw: string): PublicId {
  const id = parsePublicId(raw);
  if (!id) throw validation('id must be a sale uuid or a numeric id');
  return id;
}

import { notFound } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMERIC = /^[1-9]\d{0,15}$/;

export type PublicId = { kind: 'uuid'; uuid: string } | { kind: 'numeric'; id: number };

/** A path id is either a uuid (recommended) or the legacy numeric id. Anything else → null. */
export function parsePublicId(raw: string): PublicId | null {
  if (UUID.test(raw)) return { kind: 'uuid', uuid: raw.toLowerCase() };
  if (NUMERIC.test(raw)) {
    const id = Number(raw);
    if (Number.isSafeInteger(id)) return { kind: 'numeric', id };
  }
  return null;
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

import { createHash } from 'node:crypto';

/**
 * A uuid that the same name always gives (RFC 9562 version 8, from a SHA-256 of the name): an id a retried
 * operation must find again, e.g. a charge opened at a PSP by a process that died before storing it.
 */
export function derivedUuid(name: string): string {
  const b = createHash('sha256').update(name).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

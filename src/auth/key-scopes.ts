import { oneOf } from '../platform/literals/one-of.js';
import { may, type Role } from './roles.js';

/**
 * What an API key pair may do (decisions.md, "Keys bounded by their creator"), each scope including the one
 * before: `read` the GET routes; `charges` also opening and cancelling charges, links and checkout sessions,
 * tokenizing and capturing; `full` everything, refunds, cashouts and dispute answers included.
 */
export const KEY_SCOPES = ['read', 'charges', 'full'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export const isKeyScope = oneOf(KEY_SCOPES);

/** Whether a key of scope `have` opens a route that needs `need`. */
export function scopeCovers(have: KeyScope, need: KeyScope): boolean {
  return KEY_SCOPES.indexOf(have) >= KEY_SCOPES.indexOf(need);
}

/**
 * The widest key a user of this role may make or hold: a key never does what its creator cannot. Moving money
 * (withdrawals, refunds, dispute answers) needs `full`; a role that manages integrations without moving money
 * (developer) gets `charges`; a role without integrations makes no key at all (null).
 */
export function widestKeyScope(role: Role): KeyScope | null {
  if (!may(role, 'integrations')) return null;
  return may(role, 'withdrawals.create') && may(role, 'disputes.respond') ? 'full' : 'charges';
}

/** The scope a route needs when it declares none: reads need `read`, anything else `full` (deny by default). */
export function defaultRouteScope(method: string): KeyScope {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'full';
}

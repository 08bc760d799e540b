import { oneOf } from '../platform/literals/one-of.js';

/**
 * Team roles and what each may do (decisions.md, Teams). Every panel route declares one permission beside its
 * definition (`config.permission`); the session hook checks it, and a route without one cannot be registered.
 */
export const ROLES = ['owner', 'admin', 'finance', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = {
  /** Any signed-in user: their own session, password and two-factor. */
  self: 'their own session and two-factor',
  'money.view': 'balance, sales, withdrawals, statement and exports',
  'withdrawals.create': 'create, approve and decline withdrawals',
  'sales.create': 'issue charges and payment links, refund sales',
  'disputes.respond': 'answer disputes (evidence) or accept them',
  integrations: 'API keys, the IP allow-list, webhooks and sandbox helpers',
  team: 'users, roles and the withdrawal approval rule',
  audit: 'the audit log',
} as const;
export type Permission = keyof typeof PERMISSIONS;

/** What an owner and an admin may do: every permission. */
const EVERYTHING: readonly Permission[] = [
  'self',
  'money.view',
  'withdrawals.create',
  'sales.create',
  'disputes.respond',
  'integrations',
  'team',
  'audit',
];

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: EVERYTHING,
  admin: EVERYTHING,
  finance: ['self', 'money.view', 'withdrawals.create', 'sales.create', 'disputes.respond', 'audit'],
  developer: ['self', 'money.view', 'integrations'],
  viewer: ['self', 'money.view'],
};

export function may(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

export function permissionsOf(role: Role): Permission[] {
  return [...GRANTS[role]];
}

export function rolesWith(permission: Permission): Role[] {
  return ROLES.filter((r) => may(r, permission));
}

export const isRole = oneOf(ROLES);

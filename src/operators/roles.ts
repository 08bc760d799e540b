import { oneOf } from '../platform/literals/one-of.js';

/**
 * Operators' roles (decisions.md, "The operators' console"), each including the one before: support reads
 * everything and resends deliveries; risk also suspends, holds payouts and decides reviews; finance also sets
 * fee plans, decides anticipations and reads reports; admin also manages operators and decides onboarding.
 */
export const OPERATOR_ROLES = ['support', 'risk', 'finance', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const isOperatorRole = oneOf(OPERATOR_ROLES);

/** Whether an operator of role `have` may do what needs `need`. */
export function roleCovers(have: OperatorRole, need: OperatorRole): boolean {
  return OPERATOR_ROLES.indexOf(have) >= OPERATOR_ROLES.indexOf(need);
}

export const OPERATOR_ROLE_LABELS: Record<OperatorRole, string> = {
  support: 'Suporte',
  risk: 'Risco',
  finance: 'Financeiro',
  admin: 'Administrador',
};

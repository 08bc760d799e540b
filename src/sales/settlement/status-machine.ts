import { type EventName, SALE_EVENT_OF_STATUS } from '../../webhooks/index.js';

export const SALE_STATUSES = [
  'PENDENTE',
  'EM_PROCESSAMENTO',
  'PAGO',
  'CANCELADO',
  'RECUSADO',
  'ESTORNADO',
  'FALHA',
  'CHARGEBACK',
  'MED',
] as const;
export type SaleStatus = (typeof SALE_STATUSES)[number];

/** decisions.md, "Sale transitions": anything not listed is refused (409 in the sandbox). */
export const TRANSITIONS: Record<SaleStatus, readonly SaleStatus[]> = {
  PENDENTE: ['EM_PROCESSAMENTO', 'PAGO', 'CANCELADO', 'RECUSADO', 'FALHA'],
  EM_PROCESSAMENTO: ['PAGO', 'RECUSADO', 'FALHA', 'CANCELADO'],
  PAGO: ['ESTORNADO', 'CHARGEBACK', 'MED'],
  MED: ['PAGO', 'ESTORNADO'],
  CHARGEBACK: ['PAGO', 'ESTORNADO'],
  CANCELADO: [],
  RECUSADO: [],
  ESTORNADO: [],
  FALHA: [],
};

/** Statuses of a sale not yet paid, refused or cancelled: they notify no postback. */
export function isOpen(status: SaleStatus): boolean {
  return status === 'PENDENTE' || status === 'EM_PROCESSAMENTO';
}

/** Statuses of a sale closed without ever being paid: a payment that still arrives is owed back to its payer. */
export function isClosedUnpaid(status: SaleStatus): boolean {
  return status === 'CANCELADO' || status === 'RECUSADO' || status === 'FALHA';
}

/** Statuses whose arrival notifies both channels (the API contract's "Sale status triggers"): every status but the open ones. */
export const FINAL_STATUSES: ReadonlySet<SaleStatus> = new Set(SALE_STATUSES.filter((s) => !isOpen(s)));

/** The webhook event a status fires; EM_PROCESSAMENTO fires none. */
export function eventFor(status: SaleStatus): EventName | null {
  return SALE_EVENT_OF_STATUS[status] ?? null;
}

export type TransitionCheck = 'apply' | 'same' | 'refused';

export function checkTransition(from: SaleStatus, to: SaleStatus): TransitionCheck {
  if (from === to) return 'same';
  return TRANSITIONS[from].includes(to) ? 'apply' : 'refused';
}

export const isDispute = (s: SaleStatus) => s === 'MED' || s === 'CHARGEBACK';

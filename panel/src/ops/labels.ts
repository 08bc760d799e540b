/** What the console shows of statuses and roles, in Brazilian Portuguese. */
import type { OperatorAuditAction } from '../../../src/operators/audit-actions';

/** A recipient's transferInterval (split payments). */
export const TRANSFER_INTERVAL: Record<string, string> = {
  manual: 'Manual',
  daily: 'Diário',
  weekly: 'Semanal',
};

export const ACCOUNT_STATUS: Record<string, string> = {
  pending_review: 'Em análise',
  active: 'Ativa',
  suspended: 'Suspensa',
  closed: 'Encerrada',
};

export const OPERATOR_ROLE: Record<string, string> = {
  support: 'Suporte',
  risk: 'Risco',
  finance: 'Financeiro',
  admin: 'Administrador',
};

export const OPERATOR_STATUS: Record<string, string> = {
  invited: 'Convidado',
  enrolling: 'Cadastrando autenticador',
  active: 'Ativo',
  disabled: 'Desativado',
};

export const DOCUMENT_KIND: Record<string, string> = {
  id_front: 'Documento de identidade (frente)',
  id_back: 'Documento de identidade (verso)',
  selfie: 'Selfie com o documento',
  company_contract: 'Contrato social',
  proof_of_address: 'Comprovante de endereço',
};

/** An anticipation's status (the console's Antecipações, its audit entries). */
export const ANTICIPATION_STATUS: Record<string, string> = {
  requested: 'Aguardando decisão',
  approved: 'Aprovada',
  rejected: 'Recusada',
  paid: 'Paga',
};

export const REVIEW_KIND: Record<string, string> = { onboarding: 'Cadastro', risk: 'Risco' };

export const WITHDRAWAL_QUEUE: Record<string, string> = {
  held: 'Em análise (retidos)',
  pending: 'Pendentes e em processamento',
  failed: 'Recusados',
  stuck: 'Parados há mais de 30 minutos',
};

export const METHOD: Record<string, string> = {
  PIX: 'PIX',
  BOLETO: 'Boleto',
  CREDIT_CARD: 'Cartão de crédito',
  DEBIT_CARD: 'Cartão de débito',
  PIX_AUTOMATICO: 'PIX Automático',
  TRANSFER: 'Transferência',
};

/** A CPF or CNPJ as people write it. */
export function documentText(doc: string | null): string {
  if (!doc) return '—';
  if (doc.length === 11) return doc.replace(/(\d{3})(\d{3})(\d{3})(\d{2})/, '$1.$2.$3-$4');
  if (doc.length === 14) return doc.replace(/(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})/, '$1.$2.$3/$4-$5');
  return doc;
}

export const RISK_ACTION: Record<string, string> = { block: 'Bloquear', review: 'Analisar (cartão)' };

export const PAYMENT_METHOD: Record<string, string> = {
  PIX: 'PIX',
  BOLETO: 'Boleto',
  CREDIT_CARD: 'Crédito',
  DEBIT_CARD: 'Débito',
};

/** Every action of the operator audit log (the server's closed list: a new one without a label does not compile). */
export const AUDIT_ACTION: Record<OperatorAuditAction, string> = {
  'account.approve': 'Aprovou o cadastro',
  'account.reject': 'Recusou o cadastro',
  'account.suspend': 'Suspendeu a conta',
  'account.reactivate': 'Reativou a conta',
  'account.close': 'Encerrou a conta',
  'account.payout-hold': 'Reteve os saques',
  'account.payout-release': 'Liberou os saques',
  'account.card-payments-resume': 'Retomou os pagamentos com cartão',
  'account.fee-plan': 'Aplicou um plano de tarifas à conta',
  'withdrawal.released': 'Liberou um saque',
  'withdrawal.cancelled': 'Cancelou um saque',
  'review.approved': 'Aprovou uma análise',
  'review.rejected': 'Recusou uma análise',
  'review.expired': 'Análise vencida sem decisão: autorização cancelada',
  'risk.block': 'Regra de risco bloqueou uma venda',
  'risk.review': 'Regra de risco reteve uma venda para análise',
  'risk_rule.created': 'Criou uma regra de risco',
  'risk_rule.deleted': 'Excluiu uma regra de risco',
  'fee_plan.created': 'Criou um plano de tarifas',
  'fee_plan.updated': 'Alterou um plano de tarifas',
  'anticipation.approved': 'Aprovou uma antecipação',
  'anticipation.rejected': 'Recusou uma antecipação',
  'reconciliation.requested': 'Pediu uma conciliação com o PSP',
  'discrepancy.resolved': 'Resolveu uma divergência da conciliação',
  'delivery.resent': 'Reenviou uma entrega de webhook',
  'operator.invited': 'Convidou um operador',
  'operator.invitation_resent': 'Reenviou o convite de um operador',
  'operator.enrolled': 'Concluiu o cadastro',
  'operator.disabled': 'Desativou um operador',
  'operator.role_changed': 'Mudou o papel de um operador',
  'login.succeeded': 'Entrou',
  'login.failed': 'Errou a senha ou o código',
  logout: 'Saiu',
  denied: 'Tentou algo além do seu papel (recusado)',
};

/** Who acted, when it was not a person: the risk rules themselves, or the command line at the server. */
export const AUDIT_ACTOR: Record<string, string> = {
  'risk-rules': 'Regras de risco (automático)',
  cli: 'Linha de comando',
};

const TARGET_KIND: Record<string, string> = {
  account: 'Conta',
  anticipation: 'Antecipação',
  delivery: 'Entrega',
  fee_plan: 'Plano de tarifas',
  operator: 'Operador',
  review: 'Análise',
  risk_rule: 'Regra de risco',
  sale: 'Venda',
  withdrawal: 'Saque',
  reconciliation_run: 'Conciliação',
  discrepancy: 'Divergência',
};

/** An audit entry's target ("sale:12", "withdrawal:<uuid>") as people read it: "Venda #12", "Saque 1a2b3c4d". */
export function auditTarget(target: string | null): string {
  if (!target) return '—';
  const [, kind, id] = /^([a-z_]+):(\S+)$/.exec(target) ?? [];
  const name = kind ? TARGET_KIND[kind] : undefined;
  if (!name || !id) return target;
  return /^\d+$/.test(id) ? `${name} #${id}` : `${name} ${id.slice(0, 8)}`;
}

/** A reconciliation run's schedule (Conciliação). */
export const RUN_SCHEDULE: Record<string, string> = {
  frequent: 'A cada 10 minutos',
  daily: 'Diária',
  manual: 'Pedida',
};

/** Where a reconciliation run is. */
export const RUN_STATUS: Record<string, string> = {
  waiting: 'Aguardando',
  running: 'Em andamento',
  retrying: 'Falhou; nova tentativa em até 2 minutos',
  finished: 'Concluída',
};

/** What the PSP (or the bank) and the gateway disagree on. */
export const DISCREPANCY_KIND: Record<string, string> = {
  unknown_charge: 'Pix sem cobrança do gateway',
  amount_mismatch: 'Valor diferente do cobrado',
  missing_at_psp: 'Crédito que o PSP não lista',
  duplicate_payment: 'Pagamento em duplicidade',
  closed_charge_paid: 'Pago depois de a cobrança fechar',
};

/** What the console shows of statuses and roles, in Brazilian Portuguese. */
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

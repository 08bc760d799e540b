/**
 * Every status and code the panel shows, in Brazilian Portuguese, in one place: pages show `label(X, v)`,
 * never the API's raw value (an unknown value falls back to itself rather than to nothing).
 */
export const SALE_STATUS: Record<string, string> = {
  PENDENTE: 'Pendente',
  EM_PROCESSAMENTO: 'Em processamento',
  PAGO: 'Pago',
  CANCELADO: 'Cancelado',
  RECUSADO: 'Recusado',
  ESTORNADO: 'Estornado',
  FALHA: 'Falha',
  CHARGEBACK: 'Chargeback',
  MED: 'MED (devolução PIX)',
};

export const WITHDRAWAL_STATUS: Record<string, string> = {
  PENDING: 'Pendente',
  PROCESSING: 'Em processamento',
  COMPLETED: 'Concluído',
  FAILED: 'Recusado',
  CANCELLED: 'Cancelado',
};

/** A webhook delivery: waiting for (another) attempt, accepted by the receiver, or out of attempts. */
export const DELIVERY_STATUS: Record<string, string> = {
  PENDING: 'Pendente',
  DELIVERED: 'Entregue',
  FAILED: 'Falhou',
};

export const METHODS: Record<string, string> = {
  PIX: 'PIX',
  CREDIT_CARD: 'Cartão de crédito',
  DEBIT_CARD: 'Cartão de débito',
  BOLETO: 'Boleto',
  TRANSFER: 'Transferência',
  PIX_AUTOMATICO: 'PIX Automático',
};

export const PIX_KEY_TYPES: Record<string, string> = {
  CPF: 'CPF',
  CNPJ: 'CNPJ',
  EMAIL: 'E-mail',
  PHONE: 'Telefone',
  RANDOM: 'Chave aleatória',
};

export function label(labels: Record<string, string>, value: string): string {
  return labels[value] ?? value;
}

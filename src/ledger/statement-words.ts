/**
 * What a statement line is about (its journal entry's reference), in the panel's words: the panel's Extrato
 * and the statement's CSV export say the same. Imported by the panel too (no Node dependency).
 */
export const STATEMENT_REFERENCES: Record<string, string> = {
  sale: 'venda',
  withdrawal: 'saque',
  dispute: 'contestação',
  receivable: 'parcela de cartão',
  anticipation: 'antecipação',
};

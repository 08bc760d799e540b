/** A risk rule's conditions in words: the rules page and the audit log say them alike. */
import { money } from '../ui/format';
import { label } from '../ui/labels';
import type { RiskRuleInput } from './api';
import { PAYMENT_METHOD } from './labels';

export type ListField = 'emailDomainIn' | 'emailIn' | 'documentIn' | 'binIn' | 'cardFingerprintIn' | 'ipIn';

export const LISTS: { key: ListField; label: string; hint: string }[] = [
  { key: 'emailDomainIn', label: 'Domínios de e-mail', hint: 'exemplo.com' },
  { key: 'emailIn', label: 'E-mails', hint: 'comprador@exemplo.com' },
  { key: 'documentIn', label: 'CPF ou CNPJ', hint: '52998224725' },
  { key: 'binIn', label: 'BINs (6 primeiros dígitos do cartão)', hint: '411111' },
  { key: 'cardFingerprintIn', label: 'Impressões de cartão', hint: '64 dígitos hexadecimais' },
  { key: 'ipIn', label: 'Endereços IP ou faixas', hint: '203.0.113.0/24 ou 2001:db8::/32' },
];

/** A rule's `when` as one line: its methods, its amount, its lists (the first three entries of each). */
export function whenText(w: RiskRuleInput['when']): string {
  const parts: string[] = [];
  if (w.methods) parts.push(`meios: ${w.methods.map((m) => label(PAYMENT_METHOD, m)).join(', ')}`);
  if (w.amountCentsAbove !== undefined) parts.push(`valor acima de ${money(w.amountCentsAbove)}`);
  for (const list of LISTS) {
    const values = w[list.key];
    if (values)
      parts.push(
        `${list.label.toLowerCase()}: ${values.slice(0, 3).join(', ')}${values.length > 3 ? ` (+${values.length - 3})` : ''}`,
      );
  }
  return parts.join('; ');
}

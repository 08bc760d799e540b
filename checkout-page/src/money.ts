const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const clock = new Intl.DateTimeFormat('pt-BR', { timeStyle: 'short', timeZone: 'America/Sao_Paulo' });

/** Cents as R$ 1.234,56. */
export const money = (cents: number): string => brl.format(cents / 100);

/** A calendar day (YYYY-MM-DD) as 31/12/2026. */
export const day = (date: string): string => date.split('-').reverse().join('/');

/** An instant as the hour in São Paulo (14:05). */
export const hour = (iso: string): string => clock.format(new Date(iso));

/** Reais as typed in Brazil ("1.234,56", "1234,5", "80") in cents; null when it is not an amount. */
export function centsOf(text: string): number | null {
  const t = text.trim().replace(/^R\$\s*/, '');
  if (!/^\d{1,3}(\.\d{3})*(,\d{1,2})?$|^\d+(,\d{1,2})?$/.test(t)) return null;
  const [whole, fraction = ''] = t.replace(/\./g, '').split(',');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

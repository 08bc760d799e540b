const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const when = new Intl.DateTimeFormat('pt-BR', {
  dateStyle: 'short',
  timeStyle: 'short',
  timeZone: 'America/Sao_Paulo',
});

/** Cents as R$ 1.234,56. */
export function money(cents: number): string {
  return brl.format(cents / 100);
}

/** A decimal reais string of the API ("1234.56") as R$ 1.234,56. */
export function moneyText(reais: string | number): string {
  return brl.format(Number(reais));
}

export function date(iso: string | null | undefined): string {
  return iso ? when.format(new Date(iso)) : '—';
}

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

/**
 * A linha digitável of 47 digits as a bank prints it (AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE),
 * easier to read and compare with the paper; anything else as it came.
 */
export function digitableLineText(line: string): string {
  const m = /^(\d{5})(\d{5})(\d{5})(\d{6})(\d{5})(\d{6})(\d)(\d{14})$/.exec(line);
  return m ? `${m[1]}.${m[2]} ${m[3]}.${m[4]} ${m[5]}.${m[6]} ${m[7]} ${m[8]}` : line;
}

/**
 * What a Brazilian types as the API's decimal text: "1.234,56" → "1234.56", "1.000" and "100.000" (dots
 * grouping thousands) → "1000" and "100000"; "1234.56" and "0.500" stay. Anything else is left for the server.
 */
export function reaisText(typed: string): string {
  // "R$ 10,50" as typed from a receipt: the currency is the field's own
  const t = typed.trim().replace(/^R\$\s*/i, '');
  if (t.includes(',')) return t.replace(/\./g, '').replace(',', '.');
  return /^[1-9]\d{0,2}(\.\d{3})+$/.test(t) ? t.replace(/\./g, '') : t;
}

/** "1.234,56" or "1234.56" as cents; null when it is no amount of reais (at most two decimals). */
export function centsOf(typed: string): number | null {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(reaisText(typed));
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** What is left until a deadline, in words: "3 dias e 4 h", "5 h e 12 min", "12 min", or "prazo encerrado". */
export function timeLeft(iso: string, now: number = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (ms <= 0) return 'prazo encerrado';
  const minutes = Math.floor(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `${days} ${days === 1 ? 'dia' : 'dias'} e ${hours} h`;
  if (hours > 0) return `${hours} h e ${minutes % 60} min`;
  return `${Math.max(minutes, 1)} min`;
}

/** A calendar date (YYYY-MM-DD) as dd/mm/aaaa. */
/** The São Paulo day `offset` days before today, as YYYY-MM-DD (what a date field takes). */
export function saoPauloDay(offset = 0): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(
    new Date(Date.now() - offset * 86_400_000),
  );
}

export function day(date: string): string {
  return date.split('-').reverse().join('/');
}

/** A file's size as a person reads it: bytes below 1 KB, then KB, then MB (one decimal, Brazilian comma). */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace('.', ',')} MB`;
}

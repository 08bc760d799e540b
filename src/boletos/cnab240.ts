// FEBRABAN CNAB 240 for cobrança (docs/decisions.md, "Boleto"): records of 240 characters, numeric fields right
// aligned with zeros, text fields left aligned with spaces, upper case without accents. Positions are 1-based
// as the standard's tables give them.

export const RECORD = 240;

/** A field of a record being written. */
export interface Field {
  at: number;
  len: number;
  value: string | number;
  numeric?: boolean;
}

const plain = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9 .,/-]/g, ' ');

/** One 240-character record: blanks (text) or zeros (numeric) where no field is given. */
export function record(fields: Field[]): string {
  const chars = Array(RECORD).fill(' ');
  for (const f of fields) {
    const raw = String(f.value);
    const text = f.numeric
      ? raw.replace(/\D/g, '').padStart(f.len, '0').slice(-f.len)
      : plain(raw).padEnd(f.len, ' ').slice(0, f.len);
    for (let i = 0; i < f.len; i++) chars[f.at - 1 + i] = text[i];
  }
  return chars.join('');
}

/** The characters at 1-based positions from..to, inclusive. */
export const cut = (line: string, from: number, to: number) => line.slice(from - 1, to);

/** DDMMAAAA → YYYY-MM-DD (null when it names no day). */
export function cnabDate(ddmmyyyy: string): string | null {
  if (!/^\d{8}$/.test(ddmmyyyy) || ddmmyyyy === '00000000') return null;
  const iso = `${ddmmyyyy.slice(4)}-${ddmmyyyy.slice(2, 4)}-${ddmmyyyy.slice(0, 2)}`;
  const at = Date.parse(`${iso}T00:00:00Z`);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === iso ? iso : null;
}

/** YYYY-MM-DD → DDMMAAAA. */
export const toCnabDate = (iso: string) => `${iso.slice(8, 10)}${iso.slice(5, 7)}${iso.slice(0, 4)}`;

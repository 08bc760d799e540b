import { record, toCnabDate } from '../../src/boletos/cnab240.js';
import { detail, headers, title, trailers } from '../../src/boletos/remessa.js';
import type { BoletoSettings } from '../../src/platform/config/boleto.js';

export interface ReturnedTitle {
  nossoNumero: string;
  paidCents: number;
  paidOn: string;
  /** 06 liquidação (default), 02 entrada confirmada, … */
  movement?: string;
}

/** A CNAB 240 return file as a bank writes it: per title a segment T and its U. */
export function retornoFile(s: BoletoSettings, titles: ReturnedTitle[], day = '2026-11-25'): string {
  const lines = headers(s, { kind: '2', operation: 'T', day, sequence: 1 });
  let n = 0;
  for (const t of titles) {
    const movement = t.movement ?? '06';
    lines.push(
      record([
        ...detail(s.bank, ++n, 'T', movement),
        ...title(s, t.nossoNumero),
        { at: 74, len: 8, value: toCnabDate(t.paidOn), numeric: true },
        { at: 82, len: 15, value: t.paidCents, numeric: true },
      ]),
      record([
        ...detail(s.bank, ++n, 'U', movement),
        { at: 78, len: 15, value: t.paidCents, numeric: true },
        { at: 93, len: 15, value: t.paidCents, numeric: true },
        { at: 138, len: 8, value: toCnabDate(t.paidOn), numeric: true },
        { at: 146, len: 8, value: toCnabDate(t.paidOn), numeric: true },
      ]),
    );
  }
  lines.push(...trailers(s.bank, n + 1, lines.length));
  return `${lines.join('\r\n')}\r\n`;
}

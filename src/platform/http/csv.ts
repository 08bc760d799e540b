import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply } from 'fastify';

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | null;
}

/** Rows written to the stream at a time: one small string per row made the export CPU-bound on stream overhead. */
const BATCH = 500;

/**
 * Streams rows as the panel's CSV (decisions.md): UTF-8 with BOM, `;` separator, a few hundred rows at a
 * time, so an export of any size runs in constant memory (rows come from an async generator reading in chunks).
 */
export function sendCsv<T>(
  reply: FastifyReply,
  filename: string,
  rows: AsyncIterable<T>,
  columns: CsvColumn<T>[],
) {
  const csv = Readable.from(
    (async function* () {
      yield stringify([columns.map((c) => c.header)], { bom: true, delimiter: ';' });
      let batch: (string | number)[][] = [];
      for await (const row of rows) {
        batch.push(columns.map((c) => inert(c.value(row) ?? '')));
        if (batch.length === BATCH) {
          yield stringify(batch, { delimiter: ';' });
          batch = [];
        }
      }
      if (batch.length > 0) yield stringify(batch, { delimiter: ';' });
    })(),
    { objectMode: false },
  );
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .send(csv);
}

/**
 * A text cell a spreadsheet would run as a formula (`=…`, `+…`, `-…`, `@…`, or after a tab or carriage
 * return: a buyer's name is the buyer's to choose) is written with a leading `'`, which spreadsheets take as
 * "this is text" (OWASP's CSV injection advice). Amounts such as `-1,50` are numbers and stay as they are.
 */
function inert(value: string | number): string | number {
  if (typeof value !== 'string' || !/^[=+\-@\t\r]/.test(value) || /^-\d+(,\d+)?$/.test(value)) return value;
  return `'${value}`;
}

/** Cents as reais with a decimal comma and no grouping (1234,56), for spreadsheets in pt-BR. */
export function reais(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)},${String(abs % 100).padStart(2, '0')}`;
}

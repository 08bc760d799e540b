import { deflateSync } from 'node:zlib';
import bwipjs from 'bwip-js';
import {
  type Color,
  ColorTypes,
  PDFArray,
  PDFContentStream,
  PDFDocument,
  type PDFFont,
  PDFName,
  type PDFPage,
  PDFRawStream,
  PDFRef,
  rgb,
  StandardFonts,
} from 'pdf-lib';
import { formatLine, qrModules } from '../payment-standards/index.js';
import type { BoletoSettings } from '../platform/config/boleto.js';
import { formatBrl } from '../platform/money/money.js';
import { nossoNumeroCheckDigit } from './campo-livre.js';
import type { BoletoRow } from './data.js';
import { termsOf } from './paid-amount.js';
import { formatBp } from './terms.js';

const MM = 72 / 25.4;
const A4 = { width: 210 * MM, height: 297 * MM };
const MARGIN = 15 * MM;
const BLACK = rgb(0, 0, 0);
const GREY = rgb(0.35, 0.35, 0.35);

/** A number as a content stream writes it: at most three decimals, never an exponent (values here are 0..842). */
const num = (v: number) => String(Math.round(v * 1000) / 1000);

/**
 * Filled black rectangles written as content-stream operators: the QR code's and the barcode's hundreds of
 * rectangles, which pdf-lib would build as operator objects and format number by number. Each symbol is a group
 * in its own units (a module wide, a module or a bar high), placed by one transform, so that its rectangles are
 * small integers: a third of the text to write and to compress.
 */
class Rects {
  private readonly ops: string[] = [];
  /** A group whose unit is `unitX` × `unitY` points, its origin at (x, y) in PDF space (y up). */
  group(
    unitX: number,
    unitY: number,
    x: number,
    y: number,
    draw: (add: (x: number, y: number, w: number, h: number) => void) => void,
  ): void {
    this.ops.push(`q\n${num(unitX)} 0 0 ${num(unitY)} ${num(x)} ${num(y)} cm`);
    draw((rx, ry, w, h) => this.ops.push(`${rx} ${ry} ${w} ${h} re`));
    this.ops.push('f\nQ');
  }
  /** The operators, in their own graphics state. */
  content(): string {
    return this.ops.length ? `q\n0 0 0 rg\n${this.ops.join('\n')}\nQ\n` : '';
  }
}

/** A mark drawn across the page over everything else, translucent (pdf-lib draws it: opacity is a graphics state). */
interface Mark {
  font: PDFFont;
  text: string;
  x: number;
  y: number;
  size: number;
  color: Color;
  opacity: number;
}

/**
 * The page's lines of text written as one text object of content-stream operators, each font named once in the
 * page's resources: pdf-lib's drawText wraps every line in a graphics state and a text object of its own, formats
 * each number through its operator objects, and, given a `font`, adds that font to the page's resources again
 * under a new name twice a call (a page's 29 names of two fonts, each found by a search of the ones before). The text is each
 * font's own encoding of it, as drawText writes it. Marks are drawn last by pdf-lib, over everything.
 */
class Words {
  private readonly ops: string[] = [];
  private readonly names = new Map<PDFFont, string>();
  private readonly marks: Mark[] = [];
  private state = '';
  constructor(private readonly page: PDFPage) {}
  add(font: PDFFont, text: string, x: number, y: number, size: number, color: Color = BLACK): void {
    let name = this.names.get(font);
    if (name === undefined) {
      name = this.page.node.newFontDictionary(font.name, font.ref).toString();
      this.names.set(font, name);
    }
    const state = `${name} ${num(size)} Tf\n${fill(color)}`;
    if (state !== this.state) this.ops.push(state);
    this.state = state;
    this.ops.push(`1 0 0 1 ${num(x)} ${num(y)} Tm\n${font.encodeText(text).toString()} Tj`);
  }
  mark(font: PDFFont, text: string, x: number, y: number, size: number, color: Color, opacity: number): void {
    this.marks.push({ font, text, x, y, size, color, opacity });
  }
  /** The lines' operators, in their own graphics state. */
  content(): string {
    return this.ops.length ? `q\nBT\n${this.ops.join('\n')}\nET\nQ\n` : '';
  }
  /** The marks, drawn by pdf-lib after everything `content` and pdf-lib's own lines drew. */
  drawMarks(): void {
    for (const { text, font, ...options } of this.marks) {
      this.page.setFont(font);
      this.page.drawText(text, options);
    }
  }
}

/** The fill colour operator of an RGB colour (the only kind drawn here). */
function fill(color: Color): string {
  if (color.type !== ColorTypes.RGB) throw new Error(`unexpected colour ${color.type}`);
  return `${num(color.red)} ${num(color.green)} ${num(color.blue)} rg`;
}

/**
 * The QR code of `text` (error correction M, as the API's pixQrCode) as rectangles of its dark modules (a run of
 * them in a row is one), `size` points square with its top left corner at (x, top). Drawn instead of embedded
 * as an image: pdf-lib would decode a PNG and compress it again on every render.
 */
async function drawQr(rects: Rects, text: string, x: number, top: number, size: number): Promise<void> {
  const { size: count, dark } = await qrModules(text);
  const module = size / count;
  // a module a unit, rows counted down from the top
  rects.group(module, -module, x, top, (add) => {
    for (let row = 0; row < count; row++) {
      for (let col = 0; col < count; ) {
        if (!dark(row, col)) {
          col++;
          continue;
        }
        let end = col;
        while (end < count && dark(row, end)) end++;
        add(col, row, end - col, 1);
        col = end;
      }
    }
  });
}

/**
 * The ITF (interleaved 2 of 5) barcode of `digits` as bars, `width` × `height` points with its top left corner at
 * (x, top): bwip-js encodes it (bars and spaces alternate, first a bar, in modules).
 */
function drawItf(rects: Rects, digits: string, x: number, top: number, width: number, height: number): void {
  const [symbol] = bwipjs.raw({ bcid: 'interleaved2of5', text: digits }) as unknown as { sbs: number[] }[];
  const { sbs } = symbol!;
  // a module wide, the bar's height high
  rects.group(width / sbs.reduce((a, b) => a + b, 0), height, x, top - height, (add) => {
    let at = 0;
    sbs.forEach((units, i) => {
      if (i % 2 === 0) add(at, 0, units, 1);
      at += units;
    });
  });
}

/**
 * The page's content streams compressed by Node's zlib (pdf-lib compresses with pako, a JavaScript deflate
 * that took a fifth of a render) at its fastest level (a page's ~15 KB of operators in 40 % of the default
 * level's time, the file ~600 bytes larger), `first` written before what pdf-lib drew, so that anything drawn last
 * (the test-mode mark) stays over it.
 */
function compressContents(pdf: PDFDocument, page: PDFPage, first: string): void {
  const contents = page.node.get(PDFName.of('Contents'));
  const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
  let prefix = Buffer.from(first, 'latin1');
  for (const ref of refs) {
    if (!(ref instanceof PDFRef)) continue;
    const stream = pdf.context.lookup(ref);
    if (!(stream instanceof PDFContentStream)) continue;
    const bytes = Buffer.concat([prefix, stream.getUnencodedContents()]);
    prefix = Buffer.alloc(0);
    stream.dict.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
    pdf.context.assign(ref, PDFRawStream.of(stream.dict, deflateSync(bytes, { level: 1 })));
  }
}

const brDate = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
const formatDocument = (d: string) =>
  d.length === 11
    ? `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`
    : `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;

/** The payer's instructions: fine, interest and discount, as the cobv and the bank apply them. */
export function instructions(b: BoletoRow): string[] {
  const t = termsOf(b);
  const lines: string[] = [];
  if (b.description) lines.push(`Referente a: ${drawable(b.description)}`);
  if (t.discount)
    lines.push(
      `Desconto de ${formatBrl(t.discount.amountCents)} para pagamento até ${brDate(t.discount.untilDate)}.`,
    );
  if (t.fineBp > 0) lines.push(`Após o vencimento, multa de ${formatBp(t.fineBp).replace('.', ',')}%.`);
  if (t.monthlyInterestBp > 0)
    lines.push(
      `Após o vencimento, juros de ${formatBp(t.monthlyInterestBp).replace('.', ',')}% ao mês (por dia corrido).`,
    );
  lines.push(
    t.daysAfterDue > 0
      ? `Não receber após ${t.daysAfterDue} dia(s) do vencimento.`
      : 'Não receber após o vencimento.',
  );
  return lines;
}

/** Latin letters with a stroke, which no Unicode decomposition takes back to their base letter. */
const UNDECOMPOSED: Readonly<Record<string, string>> = {
  Đ: 'D',
  đ: 'd',
  Ł: 'L',
  ł: 'l',
  Ħ: 'H',
  ħ: 'h',
  Ŧ: 'T',
  ŧ: 't',
  ı: 'i',
  Ɨ: 'I',
  ƚ: 'l',
};

/** The characters of WinAnsi beyond Latin-1, which the standard fonts also draw. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/**
 * Text a merchant or a buyer typed (a shop's name, an item) as the standard fonts can draw it: a character
 * outside WinAnsi loses its accents (or its stroke: Đ, Ł) if that makes it drawable, else becomes "?" (pdf-lib
 * throws on it).
 */
export function drawable(text: string): string {
  const ok = (c: string) => {
    const p = c.codePointAt(0)!;
    return (p >= 0x20 && p <= 0x7e) || (p >= 0xa0 && p <= 0xff) || WIN_ANSI_EXTRA.has(c);
  };
  return [...text]
    .map((c) => {
      if (ok(c)) return c;
      const bare = (UNDECOMPOSED[c] ?? c).normalize('NFKD').replace(/\p{M}/gu, '');
      return bare !== '' && [...bare].every(ok) ? bare : '?';
    })
    .join('');
}

/** Text cut to `width` with an ellipsis where it would run past it (a long name, an address, a description). */
export function fitted(text: string, font: PDFFont, size: number, width: number): string {
  if (drawnWidth(text, font, size) <= width) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  // the longest start that fits beside the ellipsis
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (drawnWidth(`${chars.slice(0, mid).join('').trimEnd()}…`, font, size) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join('').trimEnd()}…`;
}

/**
 * The width text takes as drawText sets it: each character's advance, without kerning. pdf-lib's
 * widthOfTextAtSize counts the font's kerning pairs, which drawText does not apply (a line measured with them
 * is drawn up to 1 % wider: a BR Code wrapped that way ran past the margin).
 */
export function drawnWidth(text: string, font: PDFFont, size: number): number {
  let width = 0;
  for (const ch of text) width += font.widthOfTextAtSize(ch, size);
  return width;
}

/** Text broken into lines of at most `width` points as drawn (a BR Code has no spaces: it breaks anywhere). */
export function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  let line = '';
  let used = 0;
  for (const ch of text) {
    const w = font.widthOfTextAtSize(ch, size);
    if (line && used + w > width) {
      out.push(line);
      line = '';
      used = 0;
    }
    line += ch;
    used += w;
  }
  if (line) out.push(line);
  return out;
}

/** What a boleto PDF rendered with the sandbox on carries across its page (decisions.md, Sandbox). */
export const TEST_MODE_MARK = 'SEM VALOR — MODO DE TESTE';

/** What the PDF of a cancelled boleto carries across its page, above its middle: it must not be paid. */
export const CANCELLED_MARK = 'CANCELADO — NÃO PAGUE';

/**
 * A mark across the page from margin to margin, centred on `middle`, large and translucent over everything drawn
 * before it (level, so that it reads back as text, as the page's other words do): TEST_MODE_MARK at the page's
 * middle, CANCELLED_MARK above it.
 */
function drawMark(words: Words, font: PDFFont, mark: string, middle: number): void {
  const width = A4.width - 2 * MARGIN;
  const size = Math.floor((width * 10) / drawnWidth(mark, font, 10));
  const x = MARGIN + (width - drawnWidth(mark, font, size)) / 2;
  words.mark(font, mark, x, middle - size * 0.35, size, rgb(0.8, 0, 0), 0.35);
}

/**
 * The boleto híbrido as an A4 PDF: beneficiary, payer, due date, amount, instructions, the linha digitável, the
 * ITF barcode of the 44 digits (FEBRABAN: about 103 × 13 mm), and the Pix QR code with its copy-and-paste;
 * in test mode, "SEM VALOR — MODO DE TESTE" across the page; cancelled, "CANCELADO — NÃO PAGUE" and nothing
 * to pay it with (no line, Pix or barcode).
 */
export async function renderBoletoPdf(
  b: BoletoRow,
  settings: BoletoSettings,
  /** SANDBOX on: the page carries TEST_MODE_MARK, so a test boleto is never taken for one with value. */
  testMode = false,
  /** Its sale CANCELADO: the page carries CANCELLED_MARK, so that nobody pays it. */
  cancelled = false,
): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Boleto ${b.nosso_numero}`);
  pdf.setCreator('Gateway');
  // dated when it was issued, not when drawn: a boleto's PDF is the same bytes however often it is drawn again
  pdf.setCreationDate(b.created_at);
  pdf.setModificationDate(b.created_at);
  const page = pdf.addPage([A4.width, A4.height]);
  const rects = new Rects();
  const words = new Words(page);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  let y = A4.height - MARGIN;
  const text = (s: string, x: number, size = 9, font = regular, color = BLACK) =>
    words.add(font, s, x, y, size, color);
  const field = (label: string, value: string, x: number, size = 10) => {
    text(label, x, 7, regular, GREY);
    y -= 11;
    text(value, x, size, bold);
    y += 11;
  };

  // header: bank and the line
  text(`Bradesco | ${b.barcode.slice(0, 3)}-2`, MARGIN, 14, bold);
  // a cancelled one carries nothing to pay it with: no line to type, no Pix, no barcode
  const line = cancelled ? 'CANCELADO' : formatLine(b.digitable_line);
  text(line, A4.width - MARGIN - drawnWidth(line, bold, 11), 11, bold);
  y -= 8;
  page.drawLine({ start: { x: MARGIN, y }, end: { x: A4.width - MARGIN, y }, thickness: 1 });
  y -= 14;

  const col2 = A4.width / 2 + 10 * MM;
  field(
    'Beneficiário',
    `${settings.beneficiaryName} - ${formatDocument(settings.beneficiaryDocument)}`,
    MARGIN,
    9,
  );
  field('Vencimento', brDate(b.due_date), col2);
  y -= 28;
  field('Agência / Código do beneficiário', `${settings.agency} / ${settings.account}`, MARGIN);
  field('Valor do documento', formatBrl(b.amount), col2);
  y -= 28;
  field(
    'Nosso número',
    `${settings.wallet}/${b.nosso_numero}-${nossoNumeroCheckDigit(settings.wallet, b.nosso_numero)}`,
    MARGIN,
  );
  field('Carteira / Espécie', `${settings.wallet} / R$`, col2);
  y -= 28;
  // what a payer or a merchant typed is cut to the page's width, the payer's document always whole beside it
  const full = A4.width - 2 * MARGIN;
  const payerDocument = ` - ${formatDocument(b.payer.document)}`;
  const payerName = fitted(drawable(b.payer.name), bold, 9, full - drawnWidth(payerDocument, bold, 9));
  field('Pagador', `${payerName}${payerDocument}`, MARGIN, 9);
  y -= 24;
  const a = b.payer.address;
  // the street and district give way first: the city, its state and the CEP are what a payment is checked by
  const place = fitted(
    drawable(` - ${a.city}/${a.state} - CEP ${a.zipCode.slice(0, 5)}-${a.zipCode.slice(5)}`),
    regular,
    9,
    full / 2,
  );
  // then the street before the number: a long street name cut, never the house's number and district after it
  const room = full - drawnWidth(place, regular, 9);
  const tail = `, ${fitted(drawable(`${a.number} - ${a.district}`), regular, 9, room / 2)}`;
  const street = fitted(drawable(a.street), regular, 9, room - drawnWidth(tail, regular, 9));
  text(`${street}${tail}${place}`, MARGIN, 9);
  if (b.shop_name) {
    y -= 20;
    field(
      'Sacador/Avalista (beneficiário final: quem vendeu)',
      fitted(drawable(b.shop_name), bold, 9, full),
      MARGIN,
      9,
    );
    y -= 6;
  }
  y -= 18;
  text('Instruções (responsabilidade do beneficiário)', MARGIN, 7, regular, GREY);
  for (const instruction of instructions(b)) {
    y -= 12;
    text(fitted(instruction, regular, 9, full), MARGIN, 9);
  }
  y -= 16;
  page.drawLine({ start: { x: MARGIN, y }, end: { x: A4.width - MARGIN, y }, thickness: 0.5, color: GREY });
  y -= 16;

  if (cancelled) {
    text('Este boleto foi cancelado e não pode ser pago:', MARGIN, 10, bold);
    y -= 14;
    text('sem Pix, sem linha digitável e sem código de barras. Fale com quem o emitiu.', MARGIN, 10);
    drawMark(words, bold, CANCELLED_MARK, (A4.height * 3) / 4);
  } else {
    await drawPayable(page, rects, words, b, line, regular, bold, y);
  }
  if (testMode) drawMark(words, bold, TEST_MODE_MARK, A4.height / 2);
  words.drawMarks();
  compressContents(pdf, page, rects.content() + words.content());
  // without object streams, which pdf-lib would compress with pako too (a page's few objects gain nothing by them)
  return pdf.save({ useObjectStreams: false });
}

/** What a payable boleto is paid with, from `top` down: its Pix (QR code and copy-and-paste), its line and barcode. */
async function drawPayable(
  page: PDFPage,
  rects: Rects,
  words: Words,
  b: BoletoRow,
  line: string,
  regular: PDFFont,
  bold: PDFFont,
  top: number,
): Promise<void> {
  let y = top;
  const text = (s: string, x: number, size = 9, font = regular, color = BLACK) =>
    words.add(font, s, x, y, size, color);
  // Pix: QR code and copy-and-paste
  text('Pague com Pix: leia o QR code ou use o Pix copia e cola', MARGIN, 10, bold);
  const qrSize = 45 * MM;
  y -= 6;
  await drawQr(rects, b.pix_copy_paste, MARGIN, y, qrSize);
  const copyX = MARGIN + qrSize + 8 * MM;
  let copyY = y - 10;
  for (const part of wrap(b.pix_copy_paste, regular, 8, A4.width - MARGIN - copyX)) {
    words.add(regular, part, copyX, copyY, 8);
    copyY -= 10;
  }
  y -= qrSize + 16;
  page.drawLine({ start: { x: MARGIN, y }, end: { x: A4.width - MARGIN, y }, thickness: 0.5, color: GREY });
  y -= 18;

  // the barcode: ITF of the 44 digits, with its quiet zones
  text('Linha digitável', MARGIN, 7, regular, GREY);
  y -= 13;
  text(line, MARGIN, 12, bold);
  y -= 10;
  drawItf(rects, b.barcode, MARGIN + 5 * MM, y, 103 * MM, 13 * MM);
}

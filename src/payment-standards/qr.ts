import { createRequire } from 'node:module';

/**
 * QR codes of BR Codes, drawn by the `qrcode` library, three of its steps done faster to the same result.
 *
 * The library spends three quarters of a symbol on two choices: the segments (a shortest path through a graph of
 * the text's numeric, alphanumeric and byte runs, which `dijkstrajs` finds with a queue it sorts again on every
 * push) and the mask (each of the eight applied to its `BitMatrix` and scored by the standard's four penalty rules,
 * module by module through method calls). Here the same graph is walked by the same algorithm over arrays, the same
 * queue order kept (a push goes after every entry of equal or lower cost, as the library's stable sort puts it),
 * and the eight masks are applied and scored by the same rules over rows and columns of bits, 32 modules at a
 * time; the library encodes and places the modules as always, and its SVG is written a run at a time instead of a
 * module at a time. The symbol is the library's own, bit for bit, and so is its SVG, character for character:
 * test/payment-standards/qr.test.ts draws thousands of texts both ways and scores masks both ways (this reaches
 * into the library's modules, its version pinned: an upgrade is checked by that test). A text outside ASCII
 * (never a BR Code) is left to the library whole.
 */

type Mode = { id: string; bit: number };
type Segment = { data: string; mode: Mode; length: number };
type QrSymbol = {
  modules: { size: number; data: Uint8Array; reservedBit: Uint8Array };
  version: number;
  maskPattern: number;
};
type Options = { errorCorrectionLevel: 'M'; maskPattern?: number };
type Library = {
  create(data: string | Segment[], options: Options): QrSymbol;
  rawSplit(text: string): unknown[];
  bestVersion(segments: unknown[], level: unknown): number | undefined;
  formatBits(level: unknown, mask: number): number;
  charCountBits(mode: Mode, version: number): number;
  bitsLength: Map<Mode, (length: number) => number>;
  modes: { numeric: Mode; alphanumeric: Mode; byte: Mode };
  regex: { numeric: RegExp; alphanumeric: RegExp; byte: RegExp };
  levelM: unknown;
};

let library: Library | undefined;
/** The QR library, loaded by the first QR drawn (the process carries it only once a charge or a PDF needs it). */
function qrcode(): Library {
  if (library) return library;
  const require = createRequire(import.meta.url);
  const core = (name: string) => require(`qrcode/lib/core/${name}.js`);
  const Mode = core('mode');
  const Regex = core('regex');
  library = {
    create: require('qrcode').create,
    rawSplit: core('segments').rawSplit,
    bestVersion: core('version').getBestVersionForData,
    formatBits: core('format-info').getEncodedBits,
    charCountBits: Mode.getCharCountIndicator,
    bitsLength: new Map([
      [Mode.NUMERIC, core('numeric-data').getBitsLength],
      [Mode.ALPHANUMERIC, core('alphanumeric-data').getBitsLength],
      [Mode.BYTE, core('byte-data').getBitsLength],
    ]),
    modes: { numeric: Mode.NUMERIC, alphanumeric: Mode.ALPHANUMERIC, byte: Mode.BYTE },
    regex: { numeric: Regex.NUMERIC, alphanumeric: Regex.ALPHANUMERIC, byte: Regex.BYTE_KANJI },
    levelM: core('error-correction-level').M,
  };
  return library;
}

/** The BR Code as an SVG QR code data URI (error correction M, as the BR Code manual recommends). */
export async function qrSvgDataUri(text: string): Promise<string> {
  const symbol = draw(qrcode(), text);
  return `data:image/svg+xml;base64,${svgBytes(symbol).toString('base64')}`;
}

/** The quiet zone around the symbol, in modules (the library's renderers' default). */
const MARGIN = 2;

/** Where svgBytes writes (grown for a larger symbol, reused: a symbol's bytes are read before the next). */
let scratch = Buffer.allocUnsafe(16_384);

/**
 * The library's SVG of a symbol (its `svg-tag` renderer with margin 2, its default colours: a white square, then
 * one path of each row's dark runs, "M" to a row's first run, "m" the light modules to the next, "h" a run's
 * length), written run by run as ASCII bytes instead of module by module as strings: the same text, character
 * for character (test/payment-standards/qr.test.ts). A view of shared bytes, valid until the next call.
 */
function svgBytes(symbol: QrSymbol): Buffer {
  const { size, data } = symbol.modules;
  const whole = size + 2 * MARGIN;
  const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${whole} ${whole}" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h${whole}v${whole}H0z"/><path stroke="#000000" d="`;
  const tail = '"/></svg>\n';
  // a run at most 16 characters ("M180 180.5h177"), a row at most (size + 1) / 2 runs
  const most = head.length + tail.length + size * ((size + 1) >> 1) * 16;
  if (scratch.length < most) scratch = Buffer.allocUnsafe(most);
  const out = scratch;
  let at = out.write(head, 0, 'latin1');
  for (let row = 0; row < size; row++) {
    const o = row * size;
    let end = -1;
    for (let col = 0; col < size; col++) {
      if (data[o + col] === 0) continue;
      const start = col;
      while (col + 1 < size && data[o + col + 1] !== 0) col++;
      if (end < 0) {
        out[at++] = 0x4d; // M
        at = digits(out, at, start + MARGIN);
        out[at++] = 0x20;
        at = digits(out, at, row + MARGIN);
        out[at++] = 0x2e; // .5
        out[at++] = 0x35;
      } else {
        out[at++] = 0x6d; // m
        at = digits(out, at, start - end);
        out[at++] = 0x20;
        out[at++] = 0x30;
      }
      out[at++] = 0x68; // h
      at = digits(out, at, col + 1 - start);
      end = col + 1;
    }
  }
  at += out.write(tail, at, 'latin1');
  return out.subarray(0, at);
}

/** A non-negative integer below 1000 in decimal at `at`; where it ends. */
function digits(out: Buffer, at: number, n: number): number {
  if (n >= 100) out[at++] = 0x30 + Math.floor(n / 100);
  if (n >= 10) out[at++] = 0x30 + (Math.floor(n / 10) % 10);
  out[at++] = 0x30 + (n % 10);
  return at;
}

/** The BR Code's QR modules (error correction M, no quiet zone): `size` × `size`, `dark(row, col)`. */
export async function qrModules(
  text: string,
): Promise<{ size: number; dark: (row: number, col: number) => boolean }> {
  const { modules } = draw(qrcode(), text);
  return { size: modules.size, dark: (row, col) => modules.data[row * modules.size + col] === 1 };
}

/** The library's symbol for `text` at error correction M (exported for the test that compares it with the library's). */
export function drawQr(text: string): QrSymbol {
  return draw(qrcode(), text);
}

function draw(lib: Library, text: string): QrSymbol {
  if (text === '' || Buffer.byteLength(text, 'utf8') !== text.length)
    return lib.create(text, { errorCorrectionLevel: 'M' });
  const estimated = lib.bestVersion(lib.rawSplit(text), lib.levelM);
  const symbol = lib.create(segments(lib, text, estimated || 40), {
    errorCorrectionLevel: 'M',
    maskPattern: 0,
  });
  chooseMask(lib, symbol);
  return symbol;
}

/** The text's runs in order: digits, the other alphanumeric characters, the rest (the library's raw split). */
function runs(lib: Library, text: string): Segment[] {
  const found: { index: number; segment: Segment }[] = [];
  for (const [regex, mode] of [
    [lib.regex.numeric, lib.modes.numeric],
    [lib.regex.alphanumeric, lib.modes.alphanumeric],
    [lib.regex.byte, lib.modes.byte],
  ] as const) {
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
      found.push({ index: m.index, segment: { data: m[0], mode, length: m[0].length } });
    }
  }
  found.sort((a, b) => a.index - b.index);
  return found.map((f) => f.segment);
}

/**
 * The library's segments (`Segments.fromString`): each run may be written in its own mode or a wider one; the
 * edges' costs are the library's (the bits a run adds to a segment of its mode, the `lastCount` it carries from one
 * edge to the next included), and the path the one its Dijkstra search takes, ties broken in the same order.
 */
function segments(lib: Library, text: string, version: number): Segment[] {
  const { numeric, alphanumeric, byte } = lib.modes;
  const layers: Segment[][] = runs(lib, text).map((run) =>
    run.mode === numeric
      ? [run, { ...run, mode: alphanumeric }, { ...run, mode: byte }]
      : run.mode === alphanumeric
        ? [run, { ...run, mode: byte }]
        : [run],
  );
  // nodes: 0 the start, then each layer's in order, then the end
  const nodes: Segment[] = [];
  const first: number[] = [];
  for (const layer of layers) {
    first.push(nodes.length + 1);
    nodes.push(...layer);
  }
  const end = nodes.length + 1;
  const edges: { to: number; cost: number }[][] = Array.from({ length: end }, () => []);
  const lastCount = new Array<number>(end).fill(0);
  let previous = [0];
  layers.forEach((layer, i) => {
    const current = layer.map((_, j) => first[i]! + j);
    for (const id of current) {
      const node = nodes[id - 1]!;
      const bits = lib.bitsLength.get(node.mode)!;
      for (const from of previous) {
        if (from !== 0 && nodes[from - 1]!.mode === node.mode) {
          edges[from]!.push({ to: id, cost: bits(lastCount[from]! + node.length) - bits(lastCount[from]!) });
          lastCount[from]! += node.length;
        } else {
          if (from !== 0) lastCount[from] = node.length;
          edges[from]!.push({ to: id, cost: bits(node.length) + 4 + lib.charCountBits(node.mode, version) });
        }
      }
    }
    previous = current;
  });
  for (const from of previous) edges[from]!.push({ to: end, cost: 0 });

  const cost = new Array<number | undefined>(end + 1).fill(undefined);
  const before = new Array<number>(end + 1).fill(-1);
  cost[0] = 0;
  const queue: { node: number; cost: number }[] = [{ node: 0, cost: 0 }];
  while (queue.length > 0) {
    const { node: u, cost: reached } = queue.shift()!;
    for (const { to, cost: step } of edges[u] ?? []) {
      const through = reached + step;
      const known = cost[to];
      if (known === undefined || known > through) {
        cost[to] = through;
        let at = queue.length;
        while (at > 0 && queue[at - 1]!.cost > through) at--;
        queue.splice(at, 0, { node: to, cost: through });
        before[to] = u;
      }
    }
  }
  const path: Segment[] = [];
  for (let at = before[end]!; at > 0; at = before[at]!) path.push(nodes[at - 1]!);
  path.reverse();
  const merged: Segment[] = [];
  for (const segment of path) {
    const last = merged[merged.length - 1];
    if (last && last.mode === segment.mode) last.data += segment.data;
    else merged.push({ ...segment });
  }
  return merged;
}

/**
 * Per symbol size: each mask's bits as bytes (a module a byte: to apply it to the symbol's modules) and as lines
 * of bits (each row, and each column, `perLine` words of 32 modules: to score it); the format bits' places.
 */
type Masks = {
  bytes: Uint8Array[];
  rows: Uint32Array[];
  cols: Uint32Array[];
  perLine: number;
  format: Int32Array;
};
const masksBySize = new Map<number, Masks>();

/** Per symbol size: each mask's bits outside the reserved modules, and where the format bits go. */
function masksFor(symbol: QrSymbol): Masks {
  const { size, reservedBit } = symbol.modules;
  let masks = masksBySize.get(size);
  if (masks) return masks;
  const rules = [
    (i: number, j: number) => (i + j) % 2 === 0,
    (i: number) => i % 2 === 0,
    (_: number, j: number) => j % 3 === 0,
    (i: number, j: number) => (i + j) % 3 === 0,
    (i: number, j: number) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
    (i: number, j: number) => ((i * j) % 2) + ((i * j) % 3) === 0,
    (i: number, j: number) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
    (i: number, j: number) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
  ];
  const perLine = Math.ceil(size / 32);
  const bytes = rules.map((rule) => {
    const bits = new Uint8Array(size * size);
    for (let row = 0; row < size; row++) {
      for (let col = 0; col < size; col++) {
        if (!reservedBit[row * size + col] && rule(row, col)) bits[row * size + col] = 1;
      }
    }
    return bits;
  });
  const lines = bytes.map((bits) => toLines(bits, size, perLine));
  // format bit i's two places (the library's setupFormatInfo), then the fixed dark module
  const format = new Int32Array(31);
  for (let i = 0; i < 15; i++) {
    format[2 * i] = (i < 6 ? i : i < 8 ? i + 1 : size - 15 + i) * size + 8;
    format[2 * i + 1] = 8 * size + (i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1);
  }
  format[30] = (size - 8) * size + 8;
  masks = { bytes, rows: lines.map((l) => l.rows), cols: lines.map((l) => l.cols), perLine, format };
  masksBySize.set(size, masks);
  return masks;
}

/**
 * The library's `MaskPattern.getBestMask`, then the mask and format written as its `createSymbol` writes them: the
 * symbol comes drawn with mask 0, which is taken off, and the lowest penalty wins (the first of equals).
 */
function chooseMask(lib: Library, symbol: QrSymbol): void {
  const { size, data } = symbol.modules;
  const masks = masksFor(symbol);
  unmask(data, masks);
  const scores = scoresOf(lib, toLines(data, size, masks.perLine), masks, size);
  let best = 0;
  for (let p = 1; p < 8; p++) if (scores[p]! < scores[best]!) best = p;
  const mask = masks.bytes[best]!;
  for (let i = 0; i < data.length; i++) data[i]! ^= mask[i]!;
  writeFormat(data, masks.format, lib.formatBits(lib.levelM, best));
  symbol.maskPattern = best;
}

/** Takes mask 0, which the library drew the symbol with, off its modules. */
function unmask(data: Uint8Array, masks: Masks): void {
  const zero = masks.bytes[0]!;
  for (let i = 0; i < data.length; i++) data[i]! ^= zero[i]!;
}

/** Each mask's penalty: applied to the unmasked modules' lines with its format bits, and scored. */
function scoresOf(
  lib: Library,
  lines: { rows: Uint32Array; cols: Uint32Array },
  { rows, cols, perLine, format }: Masks,
  size: number,
): number[] {
  const trialRows = new Uint32Array(lines.rows.length);
  const trialCols = new Uint32Array(lines.cols.length);
  const scores: number[] = [];
  for (let p = 0; p < 8; p++) {
    const maskRows = rows[p]!;
    const maskCols = cols[p]!;
    for (let w = 0; w < trialRows.length; w++) {
      trialRows[w] = lines.rows[w]! ^ maskRows[w]!;
      trialCols[w] = lines.cols[w]! ^ maskCols[w]!;
    }
    writeFormatLines(trialRows, trialCols, size, perLine, format, lib.formatBits(lib.levelM, p));
    scores.push(penalty(trialRows, trialCols, size, perLine));
  }
  return scores;
}

/** The eight masks' penalties for `text`'s symbol, as scored here (for the test that compares them with the library's). */
export function maskPenalties(text: string): number[] {
  const lib = qrcode();
  const symbol = lib.create(text, { errorCorrectionLevel: 'M', maskPattern: 0 });
  const { size, data } = symbol.modules;
  const masks = masksFor(symbol);
  unmask(data, masks);
  return scoresOf(lib, toLines(data, size, masks.perLine), masks, size);
}

/** A matrix of bytes (a module a byte) as lines of bits: each row, and each column, `perLine` words. */
function toLines(m: Uint8Array, size: number, perLine: number): { rows: Uint32Array; cols: Uint32Array } {
  const rows = new Uint32Array(size * perLine);
  const cols = new Uint32Array(size * perLine);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const bit = m[r * size + c]!;
      rows[r * perLine + (c >>> 5)]! |= bit << (c & 31);
      cols[c * perLine + (r >>> 5)]! |= bit << (r & 31);
    }
  }
  return { rows, cols };
}

/** The format bits of a mask written into lines of bits, as writeFormat writes them into modules. */
function writeFormatLines(
  rows: Uint32Array,
  cols: Uint32Array,
  size: number,
  perLine: number,
  places: Int32Array,
  bits: number,
): void {
  for (let k = 0; k < 31; k++) {
    const place = places[k]!;
    const r = Math.floor(place / size);
    const c = place - r * size;
    const on = k === 30 ? 1 : (bits >> (k >> 1)) & 1;
    const rowWord = r * perLine + (c >>> 5);
    const colWord = c * perLine + (r >>> 5);
    rows[rowWord] = (rows[rowWord]! & ~(1 << (c & 31))) | (on << (c & 31));
    cols[colWord] = (cols[colWord]! & ~(1 << (r & 31))) | (on << (r & 31));
  }
}

function writeFormat(modules: Uint8Array, places: Int32Array, bits: number): void {
  for (let i = 0; i < 15; i++) {
    const bit = (bits >> i) & 1;
    modules[places[2 * i]!] = bit;
    modules[places[2 * i + 1]!] = bit;
  }
  modules[places[30]!] = 1;
}

/** The set bits of a 32-bit word. */
function ones(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The modules of word `w` that lie from `from` to `to` − 1 of a line. */
function within(w: number, from: number, to: number): number {
  const lo = Math.max(from - 32 * w, 0);
  const hi = Math.min(to - 32 * w, 32);
  if (hi <= lo) return 0;
  return (hi === 32 ? 0xffffffff : (1 << hi) - 1) & ~((1 << lo) - 1);
}

/**
 * N1 and N3 along lines of bits: runs of five or more alike (3 + the run's excess: a run earns 3 at its fifth
 * module and 1 at each after), and the 1:1:3:1:1 finder-like pattern with four light modules on one side, read in
 * the 11 modules ending at each module from the eleventh on (40 each): with s_k the line shifted k modules later
 * (module c reads module c − k), dark–light–dark at c − 4 to c − 6 is shared by both sides' patterns (the
 * library's 0x5d0 and 0x05d).
 */
function alongLines(x: Uint32Array, size: number, perLine: number): number {
  let runs = 0;
  let finders = 0;
  const fromSecond = new Uint32Array(perLine);
  const fromEleventh = new Uint32Array(perLine);
  for (let w = 0; w < perLine; w++) {
    fromSecond[w] = within(w, 1, size);
    fromEleventh[w] = within(w, 10, size);
  }
  for (let l = 0; l < size; l++) {
    const o = l * perLine;
    let prev = 0;
    let prevAlike = 0;
    for (let w = 0; w < perLine; w++) {
      const s0 = x[o + w]!;
      const s1 = (s0 << 1) | (prev >>> 31);
      // module c is as module c − 1 (from the second module of the line)
      const alike = ~(s0 ^ s1) & fromSecond[w]!;
      const five =
        alike &
        ((alike << 1) | (prevAlike >>> 31)) &
        ((alike << 2) | (prevAlike >>> 30)) &
        ((alike << 3) | (prevAlike >>> 29));
      const six = five & ((alike << 4) | (prevAlike >>> 28));
      runs += 3 * ones(five) - 2 * ones(six);
      const s2 = (s0 << 2) | (prev >>> 30);
      const s3 = (s0 << 3) | (prev >>> 29);
      const s4 = (s0 << 4) | (prev >>> 28);
      const s5 = (s0 << 5) | (prev >>> 27);
      const s6 = (s0 << 6) | (prev >>> 26);
      const s7 = (s0 << 7) | (prev >>> 25);
      const s8 = (s0 << 8) | (prev >>> 24);
      const s9 = (s0 << 9) | (prev >>> 23);
      const s10 = (s0 << 10) | (prev >>> 22);
      const middle = s4 & ~s5 & s6 & fromEleventh[w]!;
      const finder = middle & ~(s0 | s1 | s2 | s3) & s7 & s8 & ~s9 & s10;
      const back = middle & s0 & ~s1 & s2 & s3 & ~(s7 | s8 | s9 | s10);
      finders += ones(finder) + ones(back);
      prev = s0;
      prevAlike = alike;
    }
  }
  return runs + finders * 40;
}

/**
 * The four penalty rules as the library scores them (MaskPattern.getPenaltyN1 to N4), over lines of bits: N1
 * runs and N3 finder-like patterns along rows and columns, N2 2×2 blocks alike (3 each), N4 the dark share's
 * distance from half (10 per 5 %). Module by module, branches on near-random modules made the library's loops
 * slow; here 32 modules are taken at a time.
 */
function penalty(rows: Uint32Array, cols: Uint32Array, size: number, perLine: number): number {
  const score = alongLines(rows, size, perLine) + alongLines(cols, size, perLine);
  let blocks = 0;
  let dark = 0;
  for (let r = 0; r < size; r++) {
    const o = r * perLine;
    for (let w = 0; w < perLine; w++) {
      const a = rows[o + w]!;
      dark += ones(a);
      if (r === size - 1) continue;
      // module c of the block's top row and bottom row alike, and so module c + 1, and c as c + 1 on top
      const next = w + 1 < perLine ? rows[o + w + 1]! : 0;
      const below = rows[o + perLine + w]!;
      const belowNext = w + 1 < perLine ? rows[o + perLine + w + 1]! : 0;
      const aNext = (a >>> 1) | (next << 31);
      const bNext = (below >>> 1) | (belowNext << 31);
      const vertical = ~(a ^ below);
      blocks += ones(vertical & ~(aNext ^ bNext) & ~(a ^ aNext) & within(w, 0, size - 1));
    }
  }
  const count = size * size;
  const share = Math.abs(Math.ceil((dark * 100) / count / 5) - 10);
  return score + blocks * 3 + share * 10;
}

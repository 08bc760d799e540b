import { createRequire } from 'node:module';

/**
 * QR codes of BR Codes, drawn by the `qrcode` library, two of its steps done faster to the same result.
 *
 * The library spends three quarters of a symbol on two choices: the segments (a shortest path through a graph of
 * the text's numeric, alphanumeric and byte runs, which `dijkstrajs` finds with a queue it sorts again on every
 * push) and the mask (each of the eight applied to its `BitMatrix` and scored by the standard's four penalty rules,
 * module by module through method calls). Here the same graph is walked by the same algorithm over arrays, the same
 * queue order kept (a push goes after every entry of equal or lower cost, as the library's stable sort puts it),
 * and the eight masks are applied a 32-bit word at a time and scored by the same rules without branches; the
 * library encodes, places and renders as always. The symbol is the library's own, bit for bit:
 * test/payment-standards/qr.test.ts draws thousands of texts both ways (this reaches into the library's modules,
 * its version pinned: an upgrade is checked by that test). A text outside ASCII (never a BR Code) is left to the
 * library whole.
 */

type Mode = { id: string; bit: number };
type Segment = { data: string; mode: Mode; length: number };
type QrSymbol = {
  modules: { size: number; data: Uint8Array; reservedBit: Uint8Array };
  version: number;
  maskPattern: number;
};
type Options = { errorCorrectionLevel: 'M'; margin?: number; type?: 'svg'; maskPattern?: number };
type Library = {
  create(data: string | Segment[], options: Options): QrSymbol;
  renderSvg(symbol: QrSymbol, options: Options): string;
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
    renderSvg: require('qrcode/lib/renderer/svg-tag.js').render,
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

const OPTIONS: Options = { errorCorrectionLevel: 'M', margin: 2, type: 'svg' };

/** The BR Code as an SVG QR code data URI (error correction M, as the BR Code manual recommends). */
export async function qrSvgDataUri(text: string): Promise<string> {
  const lib = qrcode();
  const svg = lib.renderSvg(draw(lib, text), OPTIONS);
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
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

/** Each mask's bits as 32-bit words (four modules a word, the last word padded), and the format bits' places. */
type Masks = { xor: Uint32Array[]; format: Int32Array };
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
  const xor = rules.map((rule) => {
    const bits = new Uint8Array(words(size) * 4);
    for (let row = 0; row < size; row++) {
      for (let col = 0; col < size; col++) {
        if (!reservedBit[row * size + col] && rule(row, col)) bits[row * size + col] = 1;
      }
    }
    return new Uint32Array(bits.buffer);
  });
  // format bit i's two places (the library's setupFormatInfo), then the fixed dark module
  const format = new Int32Array(31);
  for (let i = 0; i < 15; i++) {
    format[2 * i] = (i < 6 ? i : i < 8 ? i + 1 : size - 15 + i) * size + 8;
    format[2 * i + 1] = 8 * size + (i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1);
  }
  format[30] = (size - 8) * size + 8;
  masks = { xor, format };
  masksBySize.set(size, masks);
  return masks;
}

/**
 * The library's `MaskPattern.getBestMask`, then the mask and format written as its `createSymbol` writes them: the
 * symbol comes drawn with mask 0, which is taken off, and the lowest penalty wins (the first of equals).
 */
function chooseMask(lib: Library, symbol: QrSymbol): void {
  const { size, data } = symbol.modules;
  const { xor, format } = masksFor(symbol);
  const length = words(size);
  const base = new Uint32Array(length);
  new Uint8Array(base.buffer).set(data);
  const unmasked = xor[0]!;
  for (let w = 0; w < length; w++) base[w]! ^= unmasked[w]!;
  const trial = new Uint32Array(length);
  const modules = new Uint8Array(trial.buffer);
  let best = 0;
  let lowest = Number.POSITIVE_INFINITY;
  for (let p = 0; p < 8; p++) {
    const mask = xor[p]!;
    for (let w = 0; w < length; w++) trial[w] = base[w]! ^ mask[w]!;
    writeFormat(modules, format, lib.formatBits(lib.levelM, p));
    const score = penalty(modules, size);
    if (score < lowest) {
      lowest = score;
      best = p;
    }
  }
  const mask = xor[best]!;
  for (let w = 0; w < length; w++) trial[w] = base[w]! ^ mask[w]!;
  writeFormat(modules, format, lib.formatBits(lib.levelM, best));
  data.set(modules.subarray(0, size * size));
  symbol.maskPattern = best;
}

/** The 32-bit words a symbol's modules take, a module a byte. */
function words(size: number): number {
  return Math.ceil((size * size) / 4);
}

function writeFormat(modules: Uint8Array, places: Int32Array, bits: number): void {
  for (let i = 0; i < 15; i++) {
    const bit = (bits >> i) & 1;
    modules[places[2 * i]!] = bit;
    modules[places[2 * i + 1]!] = bit;
  }
  modules[places[30]!] = 1;
}

/** 1 where the four modules of a 2×2 block, summed, are all light (0) or all dark (4). */
const ALIKE = new Uint8Array([1, 0, 0, 0, 1]);

/**
 * The four penalty rules as the library scores them: N1 runs of five or more alike in a row or column (3 + the
 * run's excess), N2 2×2 blocks alike (3 each), N3 the finder-like 1:1:3:1:1 pattern with four light modules on
 * one side (40 each), N4 the dark share's distance from half (10 per 5 %). Written without branches on the
 * modules (a run's length and its points by arithmetic, the blocks by a table): a symbol's modules are as good as
 * random, and mispredicted branches made the plain loops three times slower.
 */
function penalty(m: Uint8Array, size: number): number {
  let runs = 0;
  let finders = 0;
  let dark = 0;
  for (let r = 0; r < size; r++) {
    const row = r * size;
    let alongRow = 0;
    let lastInRow = 2;
    let windowRow = 0;
    let alongCol = 0;
    let lastInCol = 2;
    let windowCol = 0;
    for (let c = 0; c < size; c++) {
      const a = m[row + c]!;
      dark += a;
      // the run's length: one more when alike, else 1; a run earns 3 at its fifth module and 1 at each after
      alongRow = (((a ^ lastInRow) - 1) & alongRow) + 1;
      lastInRow = a;
      runs += 3 * ((4 - alongRow) >>> 31) - 2 * ((5 - alongRow) >>> 31);
      windowRow = ((windowRow << 1) & 0x7ff) | a;
      if (c >= 10 && (windowRow === 0x5d0 || windowRow === 0x05d)) finders++;

      const b = m[c * size + r]!;
      alongCol = (((b ^ lastInCol) - 1) & alongCol) + 1;
      lastInCol = b;
      runs += 3 * ((4 - alongCol) >>> 31) - 2 * ((5 - alongCol) >>> 31);
      windowCol = ((windowCol << 1) & 0x7ff) | b;
      if (c >= 10 && (windowCol === 0x5d0 || windowCol === 0x05d)) finders++;
    }
  }
  let blocks = 0;
  for (let r = 0; r < size - 1; r++) {
    const row = r * size;
    const next = row + size;
    let left = m[row]! + m[next]!;
    for (let c = 1; c < size; c++) {
      const right = m[row + c]! + m[next + c]!;
      blocks += ALIKE[left + right]!;
      left = right;
    }
  }
  const count = size * size;
  const share = Math.abs(Math.ceil((dark * 100) / count / 5) - 10);
  return runs + blocks * 3 + finders * 40 + share * 10;
}

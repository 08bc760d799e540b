import { createRequire } from 'node:module';
import fc from 'fast-check';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { brCode } from '../../src/payment-standards/brcode.js';
import { drawQr, maskPenalties, qrModules, qrSvgDataUri } from '../../src/payment-standards/qr.js';

// The gateway draws the library's symbol with two of its steps done faster (src/payment-standards/qr.ts): the
// symbols must be the library's own, bit for bit, or a phone could read a charge's code differently.
function libraryOwn(text: string) {
  return QRCode.create(text, { errorCorrectionLevel: 'M' });
}

type Matrix = ReturnType<typeof QRCode.create>['modules'];
const MaskPattern = createRequire(import.meta.url)('qrcode/lib/core/mask-pattern.js') as Record<
  'getPenaltyN1' | 'getPenaltyN2' | 'getPenaltyN3' | 'getPenaltyN4',
  (m: Matrix) => number
>;

/** Each mask's penalty as the library scores it: its symbol drawn with that mask, by its four rules. */
function libraryPenalties(text: string): number[] {
  return [0, 1, 2, 3, 4, 5, 6, 7].map((maskPattern) => {
    const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M', maskPattern: maskPattern as 0 });
    return (
      MaskPattern.getPenaltyN1(modules) +
      MaskPattern.getPenaltyN2(modules) +
      MaskPattern.getPenaltyN3(modules) +
      MaskPattern.getPenaltyN4(modules)
    );
  });
}

function sameAsLibrary(text: string): void {
  const ours = drawQr(text);
  const theirs = libraryOwn(text);
  expect({ version: ours.version, mask: ours.maskPattern }).toEqual({
    version: theirs.version,
    mask: theirs.maskPattern,
  });
  expect(Buffer.from(ours.modules.data).equals(Buffer.from(theirs.modules.data))).toBe(true);
}

const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const word = (chars: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...chars.split('')), minLength: min, maxLength: max });

const staticCode = fc
  .record({
    pixKey: fc.oneof(
      fc.uuid(),
      fc.emailAddress().filter((email) => email.length <= 77),
      word('0123456789', 11, 14),
      fc.constant('+5511999998888'),
    ),
    merchantName: fc.string({ maxLength: 30 }),
    merchantCity: fc.string({ maxLength: 20 }),
    amountCents: fc.option(fc.integer({ min: 1, max: 99_999_999_999 }), { nil: undefined }),
    txid: fc.option(word(alnum, 1, 25), { nil: undefined }),
  })
  .map((input) => brCode({ kind: 'static', ...input }));

const dynamicCode = fc
  .record({
    location: fc.webUrl().filter((url) => url.replace(/^https?:\/\//, '').length <= 77),
    merchantName: fc.string({ maxLength: 30 }),
    merchantCity: fc.string({ maxLength: 20 }),
    amountCents: fc.option(fc.integer({ min: 1, max: 99_999_999_999 }), { nil: undefined }),
  })
  .map((input) => brCode({ kind: 'dynamic', ...input }));

describe('QR codes', () => {
  it('draw the library’s symbol for BR Codes, static and dynamic', () => {
    fc.assert(fc.property(fc.oneof(staticCode, dynamicCode), sameAsLibrary), { numRuns: 1500 });
  });

  it('draw the library’s symbol for any ASCII text, mixed runs of digits, capitals and the rest included', () => {
    const runs = fc
      .array(
        fc.oneof(
          word('0123456789', 1, 12),
          word('ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:', 1, 12),
          word('abcdefghijklmnopqrstuvwxyz@#!?_=&', 1, 12),
        ),
        { minLength: 1, maxLength: 40 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.oneof(runs, fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 400 })),
        sameAsLibrary,
      ),
      {
        numRuns: 1500,
      },
    );
  });

  it('score every mask as the library does, to the point', () => {
    const texts = fc.oneof(
      staticCode,
      dynamicCode,
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 600 }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect(maskPenalties(text)).toEqual(libraryPenalties(text));
      }),
      { numRuns: 300 },
    );
  });

  it('answer the SVG the library renders, character for character, for BR Codes and any ASCII text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(staticCode, dynamicCode, fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 400 })),
        async (text) => {
          const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
          expect(Buffer.from((await qrSvgDataUri(text)).split(',')[1]!, 'base64').toString('utf8')).toBe(svg);
        },
      ),
      { numRuns: 1000 },
    );
    // symbols past 96 modules, whose coordinates take three digits
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary-ascii', minLength: 1200, maxLength: 2300 }),
        async (text) => {
          const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
          expect(svg).toMatch(/ \d{3}\.5h/);
          expect(Buffer.from((await qrSvgDataUri(text)).split(',')[1]!, 'base64').toString('utf8')).toBe(svg);
        },
      ),
      { numRuns: 10 },
    );
  });

  it('leave a text outside ASCII to the library whole', () => {
    sameAsLibrary('Pagamento à vista: R$ 10,00 — obrigado');
    sameAsLibrary('chave 🙂 emoji');
  });

  it('answer the SVG data URI the library renders, and its modules', async () => {
    const text = brCode({
      kind: 'static',
      pixKey: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
      merchantName: 'SANDBOX',
      merchantCity: 'SAO PAULO',
      amountCents: 12_345,
      txid: 'k0UbxvdPHHzxtvJxgG45uBSVn',
    });
    const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(await qrSvgDataUri(text)).toBe(
      `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`,
    );
    const { size, dark } = await qrModules(text);
    const theirs = libraryOwn(text).modules;
    expect(size).toBe(theirs.size);
    for (let row = 0; row < size; row++) {
      for (let col = 0; col < size; col++) expect(dark(row, col)).toBe(theirs.get(row, col) === 1);
    }
  });
});

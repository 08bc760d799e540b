import { getBoletoInfo } from '@brazilian-utils/brazilian-utils/get-boleto-info';
import { isValidBoleto } from '@brazilian-utils/brazilian-utils/is-valid-boleto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { campoLivre, nossoNumeroCheckDigit, nossoNumeroOf } from '../../src/boletos/campo-livre.js';
import {
  barcode,
  barcodeOfLine,
  dateOfFactor,
  digitableLine,
  dueFactor,
  isBarcode,
  MAX_BOLETO_CENTS,
} from '../../src/payment-standards/boleto-barcode.js';

const beneficiary = {
  bank: '237',
  agency: '1234',
  account: '0012345',
  wallet: '09',
  name: 'GATEWAY',
  document: '11222333000181',
};
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
// due dates from the first factor (2000-07-03) to well past the 2025 rollover and into the next cycle
const dueDates = fc
  .integer({ min: Date.UTC(2000, 6, 3), max: Date.UTC(2049, 11, 31) })
  .map((ms) => day(ms - (ms % 86_400_000)));
const inputs = fc.record({
  bank: fc.stringMatching(/^\d{3}$/),
  dueDate: dueDates,
  amountCents: fc.integer({ min: 0, max: MAX_BOLETO_CENTS }),
  campoLivre: fc.stringMatching(/^\d{25}$/),
});

describe('FEBRABAN barcode and linha digitável', () => {
  it('due factor: 9999 on 2025-02-21, 1000 again on 2025-02-22', () => {
    expect(dueFactor('2000-07-03')).toBe('1000');
    expect(dueFactor('2025-02-21')).toBe('9999');
    expect(dueFactor('2025-02-22')).toBe('1000');
    expect(dueFactor('2025-02-23')).toBe('1001');
    expect(dateOfFactor('1000', '2026-01-01')).toBe('2025-02-22');
    expect(dateOfFactor('9999', '2024-12-01')).toBe('2025-02-21');
  });

  it('a published line (Banco do Brasil example) reads back to a valid barcode and the same line', () => {
    const line = '00190000090114971860168524522114675860000102656';
    const code = barcodeOfLine(line)!;
    expect(isBarcode(code)).toBe(true);
    expect(digitableLine(code)).toBe(line);
  });

  it('every generated barcode and line validates independently and round-trips', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const code = barcode(input);
        expect(code).toMatch(/^\d{44}$/);
        expect(code[3]).toBe('9');
        const line = digitableLine(code);
        expect(line).toMatch(/^\d{47}$/);
        expect(isValidBoleto(line)).toBe(true);
        const info = getBoletoInfo(line, { referenceDate: new Date(`${input.dueDate}T12:00:00Z`) });
        expect(info?.amount).toBe(input.amountCents);
        expect(info?.bankCode).toBe(input.bank);
        expect(info?.expirationDate?.toISOString().slice(0, 10)).toBe(input.dueDate);
        expect(barcodeOfLine(line)).toBe(code);
        expect(dateOfFactor(code.slice(5, 9), input.dueDate)).toBe(input.dueDate);
      }),
      { numRuns: 2000 },
    );
  });

  it('a line with one digit of its first three fields changed is refused (mod 10)', () => {
    fc.assert(
      fc.property(inputs, fc.integer({ min: 0, max: 31 }), fc.integer({ min: 1, max: 9 }), (i, at, d) => {
        const line = digitableLine(barcode(i));
        const changed = line.slice(0, at) + String((Number(line[at]) + d) % 10) + line.slice(at + 1);
        expect(barcodeOfLine(changed)).toBeNull();
        expect(isValidBoleto(changed)).toBe(false);
      }),
    );
  });

  it('Bradesco campo livre carries agência, carteira, nosso número and conta', () => {
    const free = campoLivre(beneficiary, '00000000123');
    expect(free).toBe('1234090000000012300123450');
    expect(nossoNumeroOf(free)).toBe('00000000123');
    // Bradesco's manual example: carteira 19, nosso número 00000000002 → 8
    expect(nossoNumeroCheckDigit('19', '00000000002')).toBe('8');
  });
});

import { describe, expect, it } from 'vitest';
import { brCode, crc16, hasValidCrc } from '../../src/payment-standards/brcode.js';

// The static example published in the Central Bank's "Manual de Padrões para Iniciação do Pix" (BR Code).
const MANUAL_EXAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

describe('BR Code', () => {
  it('computes CRC16-CCITT-FALSE: the standard check value and the manual example', () => {
    expect(crc16('123456789')).toBe('29B1');
    expect(crc16(MANUAL_EXAMPLE.slice(0, -4))).toBe('1D3D');
    expect(hasValidCrc(MANUAL_EXAMPLE)).toBe(true);
    expect(hasValidCrc(`${MANUAL_EXAMPLE.slice(0, -1)}E`)).toBe(false);
  });

  it('lays out a static code field by field exactly as the manual example', () => {
    const code = brCode({
      kind: 'static',
      pixKey: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
    });
    expect(code).toBe(MANUAL_EXAMPLE);
  });

  it('a dynamic code carries point of initiation 12, the location without scheme, the amount and ***', () => {
    const code = brCode({
      kind: 'dynamic',
      location: 'https://pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25',
      merchantName: 'Loja São João & Cia',
      merchantCity: 'São Paulo',
      amountCents: 12345,
    });
    expect(code.startsWith('000201010212')).toBe(true);
    expect(code).toContain('2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25');
    expect(code).toContain('5406123.45');
    expect(code).toContain('5917Loja Sao Joao Cia');
    expect(code).toContain('6009Sao Paulo');
    expect(code).toContain('62070503***6304');
    expect(hasValidCrc(code)).toBe(true);
  });
});

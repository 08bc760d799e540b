import { describe, expect, it } from 'vitest';
import {
  cardNumberMask,
  cardProblemOf,
  EMPTY_CARD,
  expiryMask,
  expiryOf,
  firstInstallmentNote,
  installmentLabel,
  refusalMessage,
} from '../../checkout-page/src/card';
import { checkCard } from '../../src/cards/card-checks';
import { CardInputError } from '../../src/cards/errors';

const NOW = new Date('2026-11-26T12:00:00Z');
const brl = (cents: number) => `R$ ${(cents / 100).toFixed(2).replace('.', ',')}`;

describe("the page's checks of the payer's card", () => {
  it('groups the number as typed (American Express 4-6-5) and the expiry as MM/AA', () => {
    expect(cardNumberMask('4111111111111111')).toBe('4111 1111 1111 1111');
    expect(cardNumberMask('4111-1111 11')).toBe('4111 1111 11');
    expect(cardNumberMask('378282246310005')).toBe('3782 822463 10005');
    expect(expiryMask('1229')).toBe('12/29');
    expect(expiryMask('1')).toBe('1');
    expect(expiryOf('12/29')).toEqual({ month: 12, year: 2029 });
    expect(expiryOf('13/29')).toBeNull();
  });

  it('refuses what the gateway refuses, in Portuguese: brand, check digit, expiry, CVV length', () => {
    const card = (over: Partial<typeof EMPTY_CARD>) => ({ ...EMPTY_CARD, holder: 'MARIA', ...over });
    const cases: [Partial<typeof EMPTY_CARD>, string, string | null][] = [
      [{ number: '4111 1111 1111 1111' }, 'number', null],
      [{ number: '4111 1111 1111 1112' }, 'number', 'Número do cartão inválido: confira os dígitos.'],
      [{ number: '9111 1111 1111 1111' }, 'number', expect.stringMatching(/^Não aceitamos esta bandeira/)],
      [{ expiry: '10/26' }, 'expiry', 'Este cartão está vencido.'],
      [{ expiry: '11/26' }, 'expiry', null],
      [{ number: '378282246310005', cvv: '123' }, 'cvv', expect.stringMatching(/4 dígitos/)],
      [{ number: '378282246310005', cvv: '1234' }, 'cvv', null],
      [{ number: '4111111111111111', cvv: '1234' }, 'cvv', expect.stringMatching(/3 dígitos/)],
    ];
    for (const [over, field, problem] of cases) {
      expect(cardProblemOf(field as 'number', card(over), NOW), `${field} ${JSON.stringify(over)}`).toEqual(
        problem,
      );
    }
  });

  it('agrees with the gateway on the numbers it takes', () => {
    for (const number of [
      '4111111111111111',
      '5555555555554444',
      '378282246310005',
      '4111111111111112',
      '1234',
    ]) {
      const page = cardProblemOf('number', { ...EMPTY_CARD, number }, NOW) === null;
      let gateway = true;
      try {
        checkCard(
          {
            number,
            holderName: 'M',
            expMonth: 12,
            expYear: 2030,
            cvv: number.startsWith('3') ? '1234' : '123',
          },
          NOW,
        );
      } catch (err) {
        if (!(err instanceof CardInputError)) throw err;
        gateway = false;
      }
      expect(page, number).toBe(gateway);
    }
  });

  it('says why a card was refused from its code, and something useful for any other', () => {
    expect(refusalMessage('05')).toMatch(/não autorizou/);
    expect(refusalMessage('57')).toMatch(/vencido/);
    expect(refusalMessage('78')).toMatch(/bloqueado/);
    expect(refusalMessage('refused')).toBe(
      'O pagamento foi recusado. Confira os dados do cartão ou use outro cartão.',
    );
    expect(refusalMessage(null)).toMatch(/^O pagamento foi recusado/);
  });

  it('labels installments with each amount, the remainder on the first', () => {
    const o = (n: number, each: number, first: number, total: number) => ({
      installments: n,
      installmentCents: each,
      firstInstallmentCents: first,
      totalCents: total,
    });
    expect(installmentLabel(o(1, 10000, 10000, 10000), brl)).toBe('À vista, R$ 100,00');
    expect(installmentLabel(o(2, 5000, 5000, 10000), brl)).toBe('2x de R$ 50,00 sem juros');
    // the remainder on the first is said beside the select, where a phone never cuts it off
    expect(installmentLabel(o(3, 3333, 3334, 10000), brl)).toBe('3x de R$ 33,33 sem juros');
    expect(firstInstallmentNote(o(3, 3333, 3334, 10000), brl)).toBe('A 1ª parcela é de R$ 33,34.');
    expect(firstInstallmentNote(o(2, 5000, 5000, 10000), brl)).toBeNull();
  });
});

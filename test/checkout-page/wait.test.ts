import { describe, expect, it } from 'vitest';
import { tooManyText } from '../../checkout-page/src/wait';

describe('a 429 in the payer’s words', () => {
  it('says the wait its Retry-After gives, and past a minute another way to pay', () => {
    expect(tooManyText(null)).toBe('Muitas tentativas seguidas. Espere um minuto e tente de novo.');
    expect(tooManyText('42')).toBe('Muitas tentativas seguidas. Espere um minuto e tente de novo.');
    // a card tried too often this hour: the page's "a minute" sent the payer back to fail again
    expect(tooManyText('3121')).toBe(
      'Muitas tentativas seguidas. Espere 53 minutos e tente de novo, ou use outro cartão ou outra forma de pagamento.',
    );
  });
});

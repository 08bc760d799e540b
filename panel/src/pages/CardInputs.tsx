import { BRAND_NAMES, brandOf, type CardBrand } from '../../../src/cards/brands';
import { invalidField } from '../ui/field-errors';
import { money } from '../ui/format';
import { fieldMarks } from '../ui/kit';

/** The payer's card as typed in "Nova cobrança"; it is sent only to the panel's tokenizing route. */
export interface CardTyped {
  number: string;
  holder: string;
  expiry: string;
  cvv: string;
  installments: string;
}

/** The card token route's name of each field, for the field its refusal names. */
const TOKEN_PATHS: Partial<Record<keyof CardTyped, string>> = {
  number: 'number',
  holder: 'holderName',
  expiry: 'expMonth',
  cvv: 'cvv',
};

/** A card's brand as a person reads it ("Mastercard", not "mastercard"). */
export const brandName = (brand: string) => BRAND_NAMES[brand as CardBrand] ?? brand;

export const EMPTY_CARD: CardTyped = { number: '', holder: '', expiry: '', cvv: '', installments: '1' };

/** MM/AA as month and four-digit year, or null. */
export function expiryOf(text: string): { expMonth: number; expYear: number } | null {
  const m = /^(\d{2})\/?(\d{2})$/.exec(text.trim());
  if (!m || Number(m[1]) < 1 || Number(m[1]) > 12) return null;
  return { expMonth: Number(m[1]), expYear: 2000 + Number(m[2]) };
}

/** "3x de R$ 33,33 (a 1ª R$ 33,34)": the sale's amount split as its receivables are (the remainder first). */
function installmentText(n: number, cents: number | null): string {
  if (cents === null || cents < n) return n === 1 ? 'À vista' : `${n}x`;
  const each = Math.floor(cents / n);
  const first = cents - each * (n - 1);
  if (n === 1) return `À vista, ${money(cents)}`;
  return first === each ? `${n}x de ${money(each)}` : `${n}x de ${money(each)} (a 1ª ${money(first)})`;
}

/**
 * The card fields of a card charge: number (its brand shown), the holder's name, expiry, CVV and installments
 * 1 to 12 with each one's amount. The merchant's card fee grows with the installments; the payer pays the amount.
 */
export function CardInputs(props: {
  card: CardTyped;
  amountCents: number | null;
  set: (card: CardTyped) => void;
  /** The card token route's refusal, marked beside the field it names. */
  error?: unknown;
}) {
  const { card } = props;
  const brand = brandOf(card.number.replace(/\D/g, ''));
  const input = (name: keyof CardTyped, label: string, attrs: Record<string, unknown> = {}) => {
    // the expiry is one field for two of the route's (expMonth, expYear)
    const path = name === 'expiry' && invalidField(props.error) === 'expYear' ? 'expYear' : TOKEN_PATHS[name];
    const marks = fieldMarks(props.error, path ?? '', `c-card-${name}`);
    return (
      <div>
        <label for={`c-card-${name}`}>{label}</label>
        <input
          id={`c-card-${name}`}
          required
          value={card[name]}
          onInput={(e) => props.set({ ...card, [name]: e.currentTarget.value })}
          {...attrs}
          {...marks.attrs}
        />
        {marks.message}
      </div>
    );
  };
  return (
    <fieldset>
      <legend>Cartão do pagador</legend>
      <div class="filters">
        {input('number', 'Número do cartão', {
          inputMode: 'numeric',
          autocomplete: 'off',
          maxLength: 23,
          'aria-describedby': 'c-card-brand',
        })}
        {input('holder', 'Nome impresso no cartão', { maxLength: 100, autocomplete: 'off' })}
        {input('expiry', 'Validade (MM/AA)', { inputMode: 'numeric', placeholder: '08/29', maxLength: 5 })}
        {input('cvv', 'CVV', { inputMode: 'numeric', maxLength: 4, autocomplete: 'off' })}
        <div>
          <label for="c-card-installments">Parcelas</label>
          <select
            id="c-card-installments"
            value={card.installments}
            onInput={(e) => props.set({ ...card, installments: e.currentTarget.value })}
          >
            {Array.from({ length: 12 }, (_, i) => i + 1).map((n) => (
              <option key={n} value={String(n)}>
                {installmentText(n, props.amountCents)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p id="c-card-brand" class="muted">
        {brand ? `Bandeira: ${BRAND_NAMES[brand]}` : 'Visa, Mastercard, American Express, Elo ou Hipercard.'}
      </p>
    </fieldset>
  );
}

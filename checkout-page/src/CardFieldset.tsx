import { useEffect, useState } from 'preact/hooks';
import { type InstallmentOption, installmentsOf, type PageData, PayError } from './api';
import {
  BRAND_NAMES,
  brandOf,
  type CardFieldName,
  type CardFields,
  cardNumberMask,
  cardProblemOf,
  expiryMask,
  firstInstallmentNote,
  installmentLabel,
  showsCardProblem,
} from './card';
import { digitsOf } from './document';
import { Field } from './Field';
import { money } from './money';

const TYPING_PAUSE_MS = 400;

/** The installments of `amountCents` (null: not known yet, e.g. an open link's amount not typed). */
export function useInstallments(page: PageData, amountCents: number | null | undefined) {
  const [state, setState] = useState<{ options: InstallmentOption[] | null; problem: string | null }>({
    options: null,
    problem: null,
  });
  useEffect(() => {
    if (amountCents === null) {
      setState({ options: null, problem: null });
      return;
    }
    let current = true;
    // an open link's amount is asked about once the payer stops typing, not at every digit
    const timer = setTimeout(
      () =>
        installmentsOf(page, amountCents).then(
          (options) => current && setState({ options, problem: null }),
          (err: unknown) =>
            current &&
            setState({
              options: null,
              problem: err instanceof PayError ? err.message : 'Não foi possível ver as parcelas.',
            }),
        ),
      amountCents === undefined ? 0 : TYPING_PAUSE_MS,
    );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [amountCents]);
  return state;
}

/**
 * The card's number (its brand shown as it is recognized), the holder's name, the expiry, the CVV and the
 * installments with each one's amount. Autocomplete lets the phone's saved cards fill it.
 */
export function CardFieldset(props: {
  card: CardFields;
  setCard: (f: CardFieldName, value: string) => void;
  left: Record<CardFieldName, boolean>;
  leave: (f: CardFieldName, e?: FocusEvent) => void;
  options: InstallmentOption[] | null;
  optionsProblem: string | null;
  /** What the select waits for while it has no options: the amount typed, or the answer. */
  waiting: string;
  installments: number;
  setInstallments: (n: number) => void;
}) {
  const { card } = props;
  const brand = brandOf(digitsOf(card.number));
  const shown = (f: CardFieldName) =>
    showsCardProblem(f, card, props.left[f]) ? cardProblemOf(f, card) : null;
  const options = props.options;
  const chosen = options?.find((o) => o.installments === props.installments);
  const first = chosen ? firstInstallmentNote(chosen, money) : null;
  const note =
    props.optionsProblem ??
    (!options
      ? props.waiting
      : options.length > 1
        ? `Sem juros: o total é sempre ${money(options[0]!.totalCents)}.${first ? ` ${first}` : ''}`
        : null);
  const field = (f: CardFieldName) => ({
    id: `card-${f}`,
    problem: shown(f),
    value: card[f],
    onBlur: (e: FocusEvent) => props.leave(f, e),
  });
  return (
    <fieldset class="address card-fields">
      <legend>Dados do cartão</legend>
      <Field
        {...field('number')}
        label="Número do cartão"
        inputMode="numeric"
        autoComplete="cc-number"
        hint={brand && !shown('number') ? `Bandeira: ${BRAND_NAMES[brand]}` : undefined}
        onInput={(v) => props.setCard('number', cardNumberMask(v))}
      />
      <Field
        {...field('holder')}
        label="Nome impresso no cartão"
        autoComplete="cc-name"
        maxLength={100}
        onInput={(v) => props.setCard('holder', v.toUpperCase())}
      />
      <div class="pair">
        <Field
          {...field('expiry')}
          label="Validade (MM/AA)"
          inputMode="numeric"
          autoComplete="cc-exp"
          onInput={(v) => props.setCard('expiry', expiryMask(v))}
        />
        <Field
          {...field('cvv')}
          label="Código de segurança (CVV)"
          inputMode="numeric"
          autoComplete="cc-csc"
          maxLength={4}
          onInput={(v) => props.setCard('cvv', digitsOf(v).slice(0, 4))}
        />
      </div>
      <div class="field">
        <label for="f-installments">Parcelas</label>
        <select
          id="f-installments"
          name="installments"
          disabled={!props.options}
          aria-describedby={note ? 'f-installments-note' : undefined}
          value={String(props.installments)}
          onChange={(e) => props.setInstallments(Number((e.currentTarget as HTMLSelectElement).value))}
        >
          {(props.options ?? []).map((o) => (
            <option key={o.installments} value={String(o.installments)}>
              {installmentLabel(o, money)}
            </option>
          ))}
        </select>
        {note && (
          <p id="f-installments-note" class={props.optionsProblem ? 'problem' : 'hint'}>
            {note}
          </p>
        )}
      </div>
    </fieldset>
  );
}

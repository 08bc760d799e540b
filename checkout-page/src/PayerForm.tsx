import { useEffect, useRef, useState } from 'preact/hooks';
import { type CardPayment, type PageData, PayError, type Payment, pay, payByCard } from './api';
import { CardFieldset, useInstallments } from './CardFieldset';
import { type CardFieldName, cardProblemOf, EMPTY_CARD, expiryOf, refusalMessage } from './card';
import { digitsOf, documentMask } from './document';
import { Field } from './Field';
import {
  ADDRESS_FIELDS,
  type FieldName,
  type PayerFields,
  problemOf,
  showsProblem,
  UFS,
  zipMask,
} from './fields';
import { centsOf, money } from './money';

/** The methods this page can take (the server lists only those the gateway takes now). */
const AVAILABLE = ['PIX', 'CREDIT_CARD', 'BOLETO'] as const;
type Method = (typeof AVAILABLE)[number];
const METHOD_LABELS: Record<Method, string> = {
  PIX: 'Pix',
  CREDIT_CARD: 'Cartão de crédito',
  BOLETO: 'Boleto',
};
const SUBMIT_LABELS: Record<Method, [string, string]> = {
  PIX: ['Pagar com Pix', 'Gerando o Pix…'],
  CREDIT_CARD: ['Pagar com cartão', 'Pagando…'],
  BOLETO: ['Gerar boleto', 'Gerando o boleto…'],
};
const CARD_FIELDS: CardFieldName[] = ['number', 'holder', 'expiry', 'cvv'];
const cardUntouched = () => ({ number: false, holder: false, expiry: false, cvv: false });

const EMPTY: PayerFields = {
  name: '',
  email: '',
  document: '',
  amount: '',
  zipCode: '',
  street: '',
  number: '',
  district: '',
  city: '',
  state: '',
};
const untouched = () =>
  Object.fromEntries(Object.keys(EMPTY).map((f) => [f, false])) as Record<FieldName, boolean>;

/**
 * The payer's name, e-mail and CPF or CNPJ (checked as typed), the amount of an open link, the method, for a
 * boleto the address its registration needs, for a card the card and its installments.
 */
export function PayerForm({
  page,
  onPaying,
  onPaid,
}: {
  page: PageData;
  onPaying: (payment: Payment) => void;
  onPaid: (payment: CardPayment) => void;
}) {
  const link = page.kind === 'link' ? page.link : null;
  const range =
    link && link.amountCents === null ? { min: link.minCents ?? 100, max: link.maxCents ?? Infinity } : null;
  const methods = AVAILABLE.filter((m) =>
    (page.kind === 'link' ? page.link.methods : page.session.methods).includes(m),
  );
  const [fields, setFields] = useState<PayerFields>(EMPTY);
  const [left, setLeft] = useState(untouched);
  const [method, setMethod] = useState<Method | undefined>(methods[0]);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  // a refusal takes the focus as it appears: the button pressed was disabled meanwhile, and focus fell to the
  // page's top; from the refusal the payer's next Tab is the button again
  const refusalLine = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (refusal) refusalLine.current?.focus();
  }, [refusal]);
  // the page answered that it takes no more payments (410): nothing is offered to press again
  const [closed, setClosed] = useState(false);
  const refused = (err: unknown) => {
    setRefusal(err instanceof PayError ? err.message : 'Algo deu errado. Tente de novo.');
    if (err instanceof PayError && err.gone) setClosed(true);
  };
  const [card, setCard] = useState(EMPTY_CARD);
  const [cardLeft, setCardLeft] = useState(cardUntouched);
  const [installments, setInstallments] = useState(1);
  const typedCents = range ? centsOf(fields.amount) : undefined;
  const amountForInstallments =
    method !== 'CREDIT_CARD'
      ? null
      : range
        ? typedCents !== null && typedCents! >= range.min && typedCents! <= range.max
          ? typedCents
          : null
        : undefined;
  const installmentChoices = useInstallments(page, amountForInstallments);
  // another amount may allow fewer installments: the choice falls back to one payment
  useEffect(() => {
    const options = installmentChoices.options;
    if (options && !options.some((o) => o.installments === installments)) setInstallments(1);
  }, [installmentChoices.options]);

  const problem = (f: FieldName) => problemOf(f, fields[f], range);
  const shown = (f: FieldName) => (showsProblem(f, fields[f], left[f]) ? problem(f) : null);
  const set = (f: FieldName, value: string) => setFields((old) => ({ ...old, [f]: value }));
  // leaving a field for the pay button does not show its problem yet: the press checks every field anyway, and
  // a message appearing under the field would move the button from under the pointer before the click lands
  const leave = (f: FieldName, e?: FocusEvent) => {
    if ((e?.relatedTarget as HTMLElement | null)?.getAttribute('type') === 'submit') return;
    setLeft((old) => ({ ...old, [f]: true }));
  };
  // each field as long as the server takes it (src/checkout/schemas.ts): a longer one was refused whole, unnamed
  const field = (f: FieldName) => ({
    id: f,
    problem: shown(f),
    value: fields[f],
    onInput: (v: string) => set(f, v),
    onBlur: (e: FocusEvent) => leave(f, e),
  });

  if (!method) {
    return (
      <section class="card">
        <p role="alert">No momento esta página não aceita nenhuma forma de pagamento. Fale com a loja.</p>
      </section>
    );
  }

  const asked: FieldName[] = [
    'amount',
    'name',
    'email',
    'document',
    ...(method === 'BOLETO' ? ADDRESS_FIELDS : []),
  ];
  const submit = async (e: Event) => {
    e.preventDefault();
    setLeft(Object.fromEntries(asked.map((f) => [f, true])) as Record<FieldName, boolean>);
    const wrong = asked.find((f) => problem(f) !== null);
    if (wrong) {
      document.getElementById(`f-${wrong}`)?.focus();
      return;
    }
    if (method === 'CREDIT_CARD') {
      setCardLeft({ number: true, holder: true, expiry: true, cvv: true });
      const wrongCard = CARD_FIELDS.find((f) => cardProblemOf(f, card) !== null);
      if (wrongCard) {
        document.getElementById(`f-card-${wrongCard}`)?.focus();
        return;
      }
      if (!installmentChoices.options?.some((o) => o.installments === installments)) {
        document.getElementById('f-installments')?.focus();
        return;
      }
      return payCard();
    }
    setBusy(true);
    setRefusal(null);
    try {
      onPaying(
        await pay(page, method, {
          name: fields.name.trim(),
          email: fields.email.trim(),
          document: digitsOf(fields.document),
          ...(range ? { amountCents: centsOf(fields.amount)! } : {}),
          ...(method === 'BOLETO'
            ? {
                address: {
                  zipCode: digitsOf(fields.zipCode),
                  street: fields.street.trim(),
                  number: fields.number.trim(),
                  district: fields.district.trim(),
                  city: fields.city.trim(),
                  state: fields.state,
                },
              }
            : {}),
        }),
      );
    } catch (err) {
      refused(err);
      setBusy(false);
    }
  };

  /** Tokenized and charged; refused, the payer reads why and may try again (the CVV typed anew). */
  const payCard = async () => {
    setBusy(true);
    setRefusal(null);
    const expiry = expiryOf(card.expiry)!;
    try {
      const payment = await payByCard(
        page,
        {
          number: digitsOf(card.number),
          holderName: card.holder.trim(),
          expMonth: expiry.month,
          expYear: expiry.year,
          cvv: card.cvv,
        },
        {
          name: fields.name.trim(),
          email: fields.email.trim(),
          document: digitsOf(fields.document),
          ...(range ? { amountCents: centsOf(fields.amount)! } : {}),
        },
        installments,
      );
      if (payment.status === 'PAGO') return onPaid(payment);
      if (payment.status === 'RECUSADO') {
        setRefusal(refusalMessage(payment.refusalCode));
        setCard((old) => ({ ...old, cvv: '' }));
        setCardLeft((old) => ({ ...old, cvv: false }));
      } else {
        onPaying({ method: 'CREDIT_CARD', ...payment });
      }
    } catch (err) {
      refused(err);
    }
    setBusy(false);
  };

  const documentDigits = digitsOf(fields.document).length;
  const documentOk =
    problem('document') === null ? (documentDigits === 11 ? 'CPF válido.' : 'CNPJ válido.') : null;

  return (
    <form class="card" onSubmit={submit} noValidate>
      {range && (
        <Field
          {...field('amount')}
          label="Valor (R$)"
          hint={`De ${money(range.min)} a ${money(range.max)}.`}
          inputMode="decimal"
        />
      )}
      <h2>Seus dados</h2>
      <Field {...field('name')} label="Nome completo" autoComplete="name" maxLength={200} />
      <Field {...field('email')} label="E-mail" autoComplete="email" inputMode="email" maxLength={320} />
      <Field
        {...field('document')}
        label="CPF ou CNPJ"
        inputMode="numeric"
        hint={documentOk ?? undefined}
        onInput={(v) => set('document', documentMask(v))}
      />
      <fieldset class="methods">
        <legend>Forma de pagamento</legend>
        {methods.map((m) => (
          <label key={m} class="method">
            <input
              type="radio"
              name="method"
              value={m}
              checked={method === m}
              onChange={() => setMethod(m)}
            />
            {METHOD_LABELS[m]}
          </label>
        ))}
      </fieldset>
      {method === 'CREDIT_CARD' && (
        <CardFieldset
          card={card}
          setCard={(f, v) => setCard((old) => ({ ...old, [f]: v }))}
          left={cardLeft}
          leave={(f, e) => {
            if ((e?.relatedTarget as HTMLElement | null)?.getAttribute('type') === 'submit') return;
            setCardLeft((old) => ({ ...old, [f]: true }));
          }}
          options={installmentChoices.options}
          optionsProblem={installmentChoices.problem}
          waiting={range ? 'Informe o valor para ver as parcelas.' : 'Carregando as parcelas…'}
          installments={installments}
          setInstallments={setInstallments}
        />
      )}
      {method === 'BOLETO' && (
        <fieldset class="address">
          <legend>Endereço (vai no boleto)</legend>
          <Field
            {...field('zipCode')}
            label="CEP"
            inputMode="numeric"
            autoComplete="postal-code"
            onInput={(v) => set('zipCode', zipMask(v))}
          />
          <Field {...field('street')} label="Rua" autoComplete="address-line1" maxLength={200} />
          <Field {...field('number')} label="Número" maxLength={20} />
          <Field {...field('district')} label="Bairro" maxLength={100} />
          <Field {...field('city')} label="Cidade" autoComplete="address-level2" maxLength={100} />
          <div class="field">
            <label for="f-state">Estado</label>
            <select
              id="f-state"
              name="state"
              autoComplete="address-level1"
              value={fields.state}
              aria-invalid={shown('state') ? 'true' : undefined}
              aria-describedby={shown('state') ? 'f-state-note' : undefined}
              onChange={(e) => set('state', (e.currentTarget as HTMLSelectElement).value)}
              onBlur={(e) => leave('state', e)}
            >
              <option value="">Escolha</option>
              {UFS.map((uf) => (
                <option key={uf} value={uf}>
                  {uf}
                </option>
              ))}
            </select>
            {shown('state') && (
              <p id="f-state-note" class="problem">
                {shown('state')}
              </p>
            )}
          </div>
        </fieldset>
      )}
      {refusal && (
        <p class="problem" role="alert" tabIndex={-1} ref={refusalLine}>
          {refusal}
        </p>
      )}
      <button type="submit" disabled={busy || closed}>
        {SUBMIT_LABELS[method][busy ? 1 : 0]}
      </button>
    </form>
  );
}

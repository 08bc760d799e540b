import { useState } from 'preact/hooks';
import { type PageData, PayError, type Payment, pay } from './api';
import { digitsOf, documentMask } from './document';
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

/** The methods this page can take; a card, which a link or session may list, is not offered yet. */
const AVAILABLE = ['PIX', 'BOLETO'] as const;
type Method = (typeof AVAILABLE)[number];
const METHOD_LABELS: Record<Method, string> = { PIX: 'Pix', BOLETO: 'Boleto' };
const SUBMIT_LABELS: Record<Method, [string, string]> = {
  PIX: ['Pagar com Pix', 'Gerando o Pix…'],
  BOLETO: ['Gerar boleto', 'Gerando o boleto…'],
};

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
 * The payer's name, e-mail and CPF or CNPJ (checked as typed), the amount of an open link, the method, and
 * for a boleto the address its registration needs.
 */
export function PayerForm({ page, onPaying }: { page: PageData; onPaying: (payment: Payment) => void }) {
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

  const problem = (f: FieldName) => problemOf(f, fields[f], range);
  const shown = (f: FieldName) => (showsProblem(f, fields[f], left[f]) ? problem(f) : null);
  const set = (f: FieldName, value: string) => setFields((old) => ({ ...old, [f]: value }));
  // leaving a field for the pay button does not show its problem yet: the press checks every field anyway, and
  // a message appearing under the field would move the button from under the pointer before the click lands
  const leave = (f: FieldName, e?: FocusEvent) => {
    if ((e?.relatedTarget as HTMLElement | null)?.getAttribute('type') === 'submit') return;
    setLeft((old) => ({ ...old, [f]: true }));
  };
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
        <p role="alert">Esta página ainda não aceita as formas de pagamento desta loja. Fale com a loja.</p>
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
      setRefusal(err instanceof PayError ? err.message : 'Algo deu errado. Tente de novo.');
      setBusy(false);
    }
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
      <Field {...field('name')} label="Nome completo" autoComplete="name" />
      <Field {...field('email')} label="E-mail" autoComplete="email" inputMode="email" />
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
          <Field {...field('street')} label="Rua" autoComplete="address-line1" />
          <Field {...field('number')} label="Número" />
          <Field {...field('district')} label="Bairro" />
          <Field {...field('city')} label="Cidade" autoComplete="address-level2" />
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
        <p class="problem" role="alert">
          {refusal}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {SUBMIT_LABELS[method][busy ? 1 : 0]}
      </button>
    </form>
  );
}

function Field(props: {
  id: FieldName;
  label: string;
  value: string;
  problem: string | null;
  hint?: string;
  autoComplete?: string;
  inputMode?: 'numeric' | 'decimal' | 'email';
  onInput: (value: string) => void;
  onBlur: (e: FocusEvent) => void;
}) {
  const id = `f-${props.id}`;
  const note = props.problem ?? props.hint;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.id}
        type="text"
        autoComplete={props.autoComplete ?? 'off'}
        inputMode={props.inputMode}
        value={props.value}
        required
        aria-invalid={props.problem ? 'true' : undefined}
        aria-describedby={note ? `${id}-note` : undefined}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
        onBlur={props.onBlur}
      />
      {note && (
        <p id={`${id}-note`} class={props.problem ? 'problem' : 'hint'}>
          {note}
        </p>
      )}
    </div>
  );
}

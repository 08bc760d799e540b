import { useState } from 'preact/hooks';
import { type PageData, PayError, type PixPayment, payByPix } from './api';
import { digitsOf, documentMask } from './document';
import { type FieldName, type PayerFields, problemOf, showsProblem } from './fields';
import { centsOf, money } from './money';

/** The methods this page can take today; the others a link or session lists are not offered yet. */
const AVAILABLE = ['PIX'] as const;
const METHOD_LABELS: Record<(typeof AVAILABLE)[number], string> = { PIX: 'Pix' };

/** The payer's name, e-mail and CPF or CNPJ (checked as typed), the amount of an open link, and the method. */
export function PayerForm({ page, onPix }: { page: PageData; onPix: (payment: PixPayment) => void }) {
  const link = page.kind === 'link' ? page.link : null;
  const range =
    link && link.amountCents === null ? { min: link.minCents ?? 100, max: link.maxCents ?? Infinity } : null;
  const methods = AVAILABLE.filter((m) =>
    (page.kind === 'link' ? page.link.methods : page.session.methods).includes(m),
  );
  const [fields, setFields] = useState<PayerFields>({ name: '', email: '', document: '', amount: '' });
  const [left, setLeft] = useState<Record<FieldName, boolean>>({
    name: false,
    email: false,
    document: false,
    amount: false,
  });
  const [method, setMethod] = useState(methods[0]);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);

  const problem = (f: FieldName) => problemOf(f, fields[f], range);
  const shown = (f: FieldName) => (showsProblem(f, fields[f], left[f]) ? problem(f) : null);
  const set = (f: FieldName, value: string) => setFields((old) => ({ ...old, [f]: value }));
  const leave = (f: FieldName) => setLeft((old) => ({ ...old, [f]: true }));

  if (!method) {
    return (
      <section class="card">
        <p role="alert">Esta página ainda não aceita as formas de pagamento desta loja. Fale com a loja.</p>
      </section>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setLeft({ name: true, email: true, document: true, amount: true });
    const wrong = (['amount', 'name', 'email', 'document'] as const).find((f) => problem(f) !== null);
    if (wrong) {
      document.getElementById(`f-${wrong}`)?.focus();
      return;
    }
    setBusy(true);
    setRefusal(null);
    try {
      onPix(
        await payByPix(page, {
          name: fields.name.trim(),
          email: fields.email.trim(),
          document: digitsOf(fields.document),
          ...(range ? { amountCents: centsOf(fields.amount)! } : {}),
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
          id="amount"
          label="Valor (R$)"
          hint={`De ${money(range.min)} a ${money(range.max)}.`}
          problem={shown('amount')}
          inputMode="decimal"
          value={fields.amount}
          onInput={(v) => set('amount', v)}
          onBlur={() => leave('amount')}
        />
      )}
      <h2>Seus dados</h2>
      <Field
        id="name"
        label="Nome completo"
        autoComplete="name"
        problem={shown('name')}
        value={fields.name}
        onInput={(v) => set('name', v)}
        onBlur={() => leave('name')}
      />
      <Field
        id="email"
        label="E-mail"
        autoComplete="email"
        inputMode="email"
        problem={shown('email')}
        value={fields.email}
        onInput={(v) => set('email', v)}
        onBlur={() => leave('email')}
      />
      <Field
        id="document"
        label="CPF ou CNPJ"
        inputMode="numeric"
        problem={shown('document')}
        hint={documentOk ?? undefined}
        value={fields.document}
        onInput={(v) => set('document', documentMask(v))}
        onBlur={() => leave('document')}
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
      {refusal && (
        <p class="problem" role="alert">
          {refusal}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Gerando o Pix…' : 'Pagar com Pix'}
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
  onBlur: () => void;
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

import { useEffect, useState } from 'preact/hooks';
import { api, type ChargeInput, type PaymentMethod, type TestChargeInput } from '../api';
import { centsOf, saoPauloDay } from '../ui/format';
import { Card, ErrorText, fieldMarks } from '../ui/kit';
import { useSandbox } from '../ui/sandbox';
import { CardInputs, type CardTyped, EMPTY_CARD, expiryOf } from './CardInputs';

const UFS = 'AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' ');

/** Today in São Paulo plus `days`, as YYYY-MM-DD (a boleto's due date is a São Paulo day). */
function spDay(days: number): string {
  const today = saoPauloDay();
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

type Fields = {
  method: 'PIX' | 'BOLETO' | 'CREDIT_CARD';
  amount: string;
  description: string;
  name: string;
  email: string;
  document: string;
  phone: string;
  dueDate: string;
  street: string;
  number: string;
  district: string;
  city: string;
  state: string;
  zipCode: string;
  /** A boleto's terms, all optional: fine and monthly interest as percentages, days payable after the due date, a discount. */
  finePercent: string;
  interestPercent: string;
  daysAfterDue: string;
  discount: string;
  discountUntil: string;
};

const METHOD_LABELS: Record<PaymentMethod, string> = {
  BOLETO: 'Boleto (com Pix)',
  PIX: 'PIX',
  CREDIT_CARD: 'Cartão de crédito',
};
/** The API's name of each field of the form, for the field an error names. */
const PATHS: Record<keyof Fields, string> = {
  method: 'paymentMethod',
  amount: 'amount',
  description: 'items',
  name: 'customer.name',
  email: 'customer.email',
  document: 'customer.document',
  phone: 'customer.phone',
  dueDate: 'boleto.dueDate',
  street: 'customer.address.street',
  number: 'customer.address.number',
  district: 'customer.address.district',
  city: 'customer.address.city',
  state: 'customer.address.state',
  zipCode: 'customer.address.zipCode',
  finePercent: 'boleto.finePercent',
  interestPercent: 'boleto.monthlyInterestPercent',
  daysAfterDue: 'boleto.daysAfterDue',
  discount: 'boleto.discount.amountCents',
  discountUntil: 'boleto.discount.untilDate',
};

/** "2,5" or "2.50" → "2.50", as the API takes a percentage; what is no percentage is sent as typed, for the server to name. */
function percentText(typed: string): string {
  const t = typed.trim().replace(',', '.');
  return /^\d{1,3}(\.\d{1,2})?$/.test(t) ? Number(t).toFixed(2) : t;
}

/** The boleto's terms as the API takes them: only those filled in. */
function boletoTerms(f: Fields): Record<string, unknown> {
  const terms: Record<string, unknown> = { dueDate: f.dueDate };
  if (f.finePercent.trim() !== '') terms.finePercent = percentText(f.finePercent);
  if (f.interestPercent.trim() !== '') terms.monthlyInterestPercent = percentText(f.interestPercent);
  if (f.daysAfterDue.trim() !== '') terms.daysAfterDue = Number(f.daysAfterDue);
  if (f.discount.trim() !== '') {
    terms.discount = { amountCents: centsOf(f.discount) ?? -1, untilDate: f.discountUntil || f.dueDate };
  }
  return terms;
}
/** What a test charge offers: the sandbox plays Pix and boleto without a card acquirer. */
const TEST_METHODS: PaymentMethod[] = ['BOLETO', 'PIX'];
const SUBMIT_LABELS: Record<PaymentMethod, string> = {
  BOLETO: 'Emitir boleto',
  PIX: 'Criar cobrança PIX',
  CREDIT_CARD: 'Cobrar no cartão',
};

/**
 * "Nova cobrança": a PIX charge, a boleto híbrido or a card charge opened from the panel through the API's own
 * path (POST /api/sales takes POST /api/transactions's body), offering only what the gateway can take now. A
 * boleto asks what a boleto needs: the due date, and the payer's CPF/CNPJ, name and address; a card is
 * tokenized first (POST /api/panel/cards/tokens) and charged by its token. The sale's page shows the outcome.
 */
export function NewCharge() {
  const [f, setF] = useState<Fields>({
    method: 'BOLETO',
    amount: '',
    description: '',
    name: '',
    email: '',
    document: '',
    phone: '',
    dueDate: spDay(3),
    street: '',
    number: '',
    district: '',
    city: '',
    state: 'SP',
    zipCode: '',
    finePercent: '',
    interestPercent: '',
    daysAfterDue: '',
    discount: '',
    discountUntil: '',
  });
  const [error, setError] = useState<unknown>(null);
  const [methods, setMethods] = useState<PaymentMethod[] | null>(null);
  const [card, setCard] = useState<CardTyped>(EMPTY_CARD);
  const [cardWrong, setCardWrong] = useState(false);
  useEffect(() => {
    api.paymentMethods().then(
      ({ methods: taken }) => {
        const offered = (['BOLETO', 'PIX', 'CREDIT_CARD'] as const).filter((m) => taken.includes(m));
        setMethods(offered);
        if (offered.length > 0 && !offered.includes(f.method))
          setF((old) => ({ ...old, method: offered[0]! }));
      },
      (err: unknown) => setError(err),
    );
  }, []);
  // an account in review charges nothing real: with the sandbox on, the form opens a test charge by the
  // sandbox's own sale route, which is open to it (docs/decisions.md, "What the panel offers an account in review")
  const sandbox = useSandbox();
  const [inReview, setInReview] = useState(false);
  useEffect(() => {
    api.onboarding().then(
      (s) => setInReview(s.status === 'pending_review'),
      () => setInReview(false),
    );
  }, []);
  const testCharge = inReview && sandbox === true;
  const offered = testCharge ? TEST_METHODS : methods;
  const [amountWrong, setAmountWrong] = useState(false);
  const [busy, setBusy] = useState(false);
  const boleto = f.method === 'BOLETO';
  const byCard = f.method === 'CREDIT_CARD';
  const field = (name: keyof Fields, label: string, attrs: Record<string, unknown> = {}) => {
    const marks = fieldMarks(error, PATHS[name], `c-${name}`);
    return (
      <div>
        <label for={`c-${name}`}>{label}</label>
        <input
          id={`c-${name}`}
          required
          value={f[name]}
          onInput={(e) => setF({ ...f, [name]: e.currentTarget.value })}
          {...attrs}
          {...marks.attrs}
        />
        {marks.message}
      </div>
    );
  };
  return (
    <>
      <h1>Nova cobrança</h1>
      {testCharge && (
        <p class="notice" role="status">
          <strong>Cobrança de teste.</strong> Sua conta está em análise: cobranças reais são liberadas depois
          da aprovação. Até lá, esta página cria cobranças de teste, que não movimentam dinheiro de verdade;
          na página da venda, "Simular pagamento" faz o papel do pagador.
        </p>
      )}
      <Card title={testCharge ? 'Dados da cobrança de teste' : 'Dados da cobrança'}>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            const cents = centsOf(f.amount);
            setAmountWrong(cents === null || cents < 1);
            if (cents === null || cents < 1) return;
            const expiry = expiryOf(card.expiry);
            setCardWrong(byCard && !expiry);
            if (byCard && !expiry) return;
            const input: ChargeInput = {
              amount: cents,
              paymentMethod: f.method,
              customer: {
                name: f.name,
                email: f.email,
                document: f.document,
                phone: f.phone,
                ...(boleto && {
                  address: {
                    street: f.street,
                    number: f.number,
                    district: f.district,
                    city: f.city,
                    state: f.state,
                    zipCode: f.zipCode,
                  },
                }),
              },
              items: [{ title: f.description, unitPrice: cents, quantity: 1, tangible: false }],
              ...(boleto && { boleto: boletoTerms(f) as ChargeInput['boleto'] }),
            };
            setBusy(true);
            try {
              if (byCard) {
                const { token } = await api.cardToken({
                  number: card.number,
                  holderName: card.holder,
                  cvv: card.cvv,
                  ...expiry!,
                });
                input.card = { token };
                input.installments = Number(card.installments);
              }
              if (testCharge) {
                const test = {
                  amount: input.amount,
                  paymentMethod: input.paymentMethod,
                  customer: input.customer,
                  items: input.items,
                } as TestChargeInput; // the schema's union of methods is not narrowed to its literals
                const sale = await api.createTestCharge(test);
                location.hash = `#/vendas/${sale.uuid}`;
                return;
              }
              const sale = await api.createCharge(input);
              location.hash = `#/vendas/${sale.uuid}`;
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <fieldset>
            <legend>Forma de pagamento</legend>
            <div class="checks">
              {(offered ?? []).map((m) => (
                <label key={m} class="check">
                  <input
                    type="radio"
                    name="c-method"
                    value={m}
                    checked={f.method === m}
                    onInput={() => setF({ ...f, method: m })}
                  />
                  {METHOD_LABELS[m]}
                </label>
              ))}
            </div>
          </fieldset>
          <div class="filters">
            {field('amount', 'Valor (R$)', {
              inputMode: 'decimal',
              placeholder: '100,00',
              'aria-invalid': amountWrong,
            })}
            {field('description', 'Descrição', { maxLength: 200, placeholder: 'Curso online' })}
            {boleto &&
              !testCharge &&
              field('dueDate', 'Vencimento', { type: 'date', min: spDay(0), max: spDay(365) })}
          </div>
          {amountWrong && (
            <p class="error" role="alert">
              Valor inválido: use reais com até duas casas, como 100,00.
            </p>
          )}
          <fieldset>
            <legend>Pagador</legend>
            <p class="muted">Todos os dados do pagador são obrigatórios.</p>
            <div class="filters">
              {field('name', 'Nome', { maxLength: 200, autocomplete: 'off' })}
              {field('document', 'CPF ou CNPJ', { inputMode: 'numeric', maxLength: 20 })}
              {field('email', 'E-mail', { type: 'email', maxLength: 320 })}
              {field('phone', 'Telefone', { type: 'tel', placeholder: '+55 11 98765-4321', maxLength: 20 })}
            </div>
          </fieldset>
          {boleto && (
            <fieldset>
              <legend>Endereço do pagador</legend>
              <div class="filters">
                {field('street', 'Rua', { maxLength: 200 })}
                {field('number', 'Número', { maxLength: 20 })}
                {field('district', 'Bairro', { maxLength: 100 })}
                {field('city', 'Cidade', { maxLength: 100 })}
                <div>
                  <label for="c-state">UF</label>
                  <select
                    id="c-state"
                    value={f.state}
                    onInput={(e) => setF({ ...f, state: e.currentTarget.value })}
                  >
                    {UFS.map((uf) => (
                      <option key={uf} value={uf}>
                        {uf}
                      </option>
                    ))}
                  </select>
                </div>
                {field('zipCode', 'CEP', { inputMode: 'numeric', placeholder: '01001-000', maxLength: 9 })}
              </div>
            </fieldset>
          )}
          {boleto && !testCharge && (
            <fieldset>
              <legend>Multa, juros e desconto (opcionais)</legend>
              <p class="muted">
                Depois do vencimento o boleto ainda pode ser pago pelos dias que você indicar, com a multa e
                os juros; até a data do desconto, ele é pago com o desconto.
              </p>
              <div class="filters">
                {field('finePercent', 'Multa (%)', {
                  required: false,
                  inputMode: 'decimal',
                  placeholder: '2,00',
                })}
                {field('interestPercent', 'Juros ao mês (%)', {
                  required: false,
                  inputMode: 'decimal',
                  placeholder: '1,00',
                })}
                {field('daysAfterDue', 'Dias para pagar em atraso (0 a 60)', {
                  required: false,
                  type: 'number',
                  min: 0,
                  max: 60,
                  placeholder: '0',
                })}
                {field('discount', 'Desconto (R$)', {
                  required: false,
                  inputMode: 'decimal',
                  placeholder: '10,00',
                })}
                {field('discountUntil', 'Desconto até', {
                  required: false,
                  type: 'date',
                  min: spDay(0),
                  max: f.dueDate,
                })}
              </div>
            </fieldset>
          )}
          {byCard && <CardInputs card={card} amountCents={centsOf(f.amount)} set={setCard} error={error} />}
          {cardWrong && (
            <p class="error" role="alert">
              Validade inválida: use MM/AA, como 08/29.
            </p>
          )}
          {offered?.length === 0 && (
            <p class="error" role="alert">
              Este gateway não aceita nenhuma forma de pagamento agora.
            </p>
          )}
          <button type="submit" disabled={busy || !offered?.length}>
            {testCharge ? 'Criar cobrança de teste' : SUBMIT_LABELS[f.method]}
          </button>
          <ErrorText error={error} />
        </form>
      </Card>
    </>
  );
}

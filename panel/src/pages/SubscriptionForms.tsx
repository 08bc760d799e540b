import { useEffect, useState } from 'preact/hooks';
import {
  api,
  type Customer,
  type PaymentMethod,
  type Plan,
  type PlanInput,
  type Subscription,
  type SubscriptionInput,
} from '../api';
import { centsOf, money } from '../ui/format';
import { Card, ErrorText, fieldMarks, useAttempt } from '../ui/kit';
import { label, METHODS } from '../ui/labels';

/** The methods a plan may take, in the form's order; only those the gateway takes now are offered. */
const PLAN_METHODS: readonly PaymentMethod[] = ['CREDIT_CARD', 'PIX', 'BOLETO'];
const INTERVALS = { month: 'Mensal', week: 'Semanal', year: 'Anual' } as const;
const NEW_CUSTOMER = 'new';
/** The card the customer gives on their billing page (e-mailed), instead of one saved. */
const CARD_BY_EMAIL = 'email';

/** "Novo plano": a name, an amount every period, an optional trial, the methods it takes. */
export function NewPlan({ onMade }: { onMade: (plan: Plan) => void }) {
  const [name, setName] = useState('');
  const [amount, setAmount] = useState('');
  const [interval, setInterval] = useState<PlanInput['interval']>('month');
  const [trial, setTrial] = useState('');
  const [taken, setTaken] = useState<PaymentMethod[] | null>(null);
  const [methods, setMethods] = useState<PaymentMethod[]>([]);
  const [problem, setProblem] = useState('');
  const { error, act } = useAttempt(() => setProblem(''));
  useEffect(() => {
    api.paymentMethods().then(
      ({ methods: can }) => {
        const offered = PLAN_METHODS.filter((m) => can.includes(m));
        setTaken(offered);
        setMethods(offered.slice(0, 1));
      },
      () => setTaken([]),
    );
  }, []);
  const toggle = (m: PaymentMethod) =>
    setMethods((now) => (now.includes(m) ? now.filter((x) => x !== m) : [...now, m]));
  return (
    <Card title="Novo plano">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const cents = centsOf(amount);
            if (cents === null || cents < 1) {
              setProblem('Digite o valor em reais, como 99,90.');
              return;
            }
            if (methods.length === 0) {
              setProblem('Escolha ao menos uma forma de pagamento.');
              return;
            }
            const body: PlanInput = { name: name.trim(), amountCents: cents, interval, methods };
            if (trial) body.trialDays = Number(trial);
            onMade(await api.createPlan(body));
            setName('');
            setAmount('');
            setTrial('');
          });
        }}
      >
        <div>
          <label for="p-name">Nome do plano</label>
          <input
            id="p-name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...fieldMarks(error, 'name', 'p-name').attrs}
          />
          {fieldMarks(error, 'name', 'p-name').message}
        </div>
        <div>
          <label for="p-amount">Valor por período (R$)</label>
          <input
            id="p-amount"
            required
            inputMode="decimal"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
            {...fieldMarks(error, 'amountCents', 'p-amount').attrs}
          />
          {fieldMarks(error, 'amountCents', 'p-amount').message}
        </div>
        <div>
          <label for="p-interval">Cobrança</label>
          <select
            id="p-interval"
            value={interval}
            onChange={(e) => setInterval(e.currentTarget.value as PlanInput['interval'])}
          >
            {Object.entries(INTERVALS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="p-trial">Teste grátis (dias, opcional)</label>
          <input
            id="p-trial"
            type="number"
            min={0}
            max={90}
            value={trial}
            onInput={(e) => setTrial(e.currentTarget.value)}
            {...fieldMarks(error, 'trialDays', 'p-trial').attrs}
          />
          {fieldMarks(error, 'trialDays', 'p-trial').message}
        </div>
        <fieldset>
          <legend>Formas de pagamento</legend>
          {taken?.length === 0 && <p class="muted">Nenhuma forma de pagamento disponível agora.</p>}
          {(taken ?? []).map((m) => (
            <label class="choice" key={m}>
              <input type="checkbox" checked={methods.includes(m)} onChange={() => toggle(m)} />{' '}
              {label(METHODS, m)}
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit">Criar plano</button>
        </div>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <ErrorText error={error} />
    </Card>
  );
}

interface Address {
  street: string;
  number: string;
  district: string;
  city: string;
  state: string;
  zipCode: string;
}
const NO_ADDRESS: Address = { street: '', number: '', district: '', city: '', state: '', zipCode: '' };
const ADDRESS_FIELDS: [keyof Address, string, number][] = [
  ['zipCode', 'CEP', 9],
  ['street', 'Rua', 200],
  ['number', 'Número', 20],
  ['district', 'Bairro', 100],
  ['city', 'Cidade', 100],
  ['state', 'UF', 2],
];

/** What the merchant reads once a subscription is made: who is e-mailed what. */
function madeText(sub: Subscription, customer: Customer): string {
  if (sub.paymentMethod === 'CREDIT_CARD' && !sub.cardId) {
    // a trial is not charged before it ends, card saved or not
    const first =
      sub.status === 'trialing'
        ? 'a primeira cobrança é feita no fim do período de teste'
        : 'a primeira cobrança é feita quando o cartão for salvo';
    return `Assinatura criada. ${customer.name} recebe por e-mail a página da assinatura para cadastrar o cartão; ${first}.`;
  }
  if (sub.paymentMethod === 'CREDIT_CARD')
    return 'Assinatura criada. O cartão salvo é cobrado a cada período.';
  return `Assinatura criada. ${customer.name} recebe por e-mail a cobrança de cada período.`;
}

/**
 * "Nova assinatura": a plan, a customer (one of the account's, or a new one made here), the method; a card
 * subscription takes a saved card or asks the customer for one by e-mail (their billing page).
 */
export function NewSubscription(props: {
  plans: Plan[];
  customers: Customer[];
  onMade: (sub: Subscription, customer: Customer) => void;
}) {
  const plans = props.plans.filter((p) => p.active);
  const [planId, setPlanId] = useState('');
  const [customerId, setCustomerId] = useState(NEW_CUSTOMER);
  const [made, setMade] = useState<Customer | null>(null);
  const [person, setPerson] = useState({ name: '', email: '', document: '' });
  const [method, setMethod] = useState<PaymentMethod | ''>('');
  const [card, setCard] = useState(CARD_BY_EMAIL);
  const [address, setAddress] = useState<Address>(NO_ADDRESS);
  const [done, setDone] = useState('');
  const { error, act } = useAttempt(() => setDone(''));
  const plan = plans.find((p) => p.id === planId) ?? plans[0];
  const customers =
    made && !props.customers.some((c) => c.id === made.id) ? [made, ...props.customers] : props.customers;
  const customer = customers.find((c) => c.id === customerId) ?? null;
  const chosen = plan && method && plan.methods.includes(method) ? method : plan?.methods[0];
  const cards = customer?.cards ?? [];
  if (plans.length === 0) {
    return (
      <Card title="Nova assinatura">
        <p class="muted">Crie um plano acima para vender assinaturas.</p>
      </Card>
    );
  }
  return (
    <Card title="Nova assinatura">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            if (!plan || !chosen) return;
            // a new customer is made first; should the subscription be refused, it stays chosen for the retry
            let who = customer;
            if (!who) {
              who = await api.createCustomer({
                name: person.name.trim(),
                email: person.email.trim(),
                document: person.document.trim(),
              });
              setMade(who);
              setCustomerId(who.id);
            }
            const body: SubscriptionInput = { customerId: who.id, planId: plan.id, paymentMethod: chosen };
            if (chosen === 'CREDIT_CARD' && card !== CARD_BY_EMAIL) body.cardId = card;
            if (chosen === 'BOLETO') body.address = { ...address, zipCode: address.zipCode.trim() };
            const sub = await api.createSubscription(body);
            setDone(madeText(sub, who));
            props.onMade(sub, who);
            setPerson({ name: '', email: '', document: '' });
            setAddress(NO_ADDRESS);
          });
        }}
      >
        <div>
          <label for="s-plan">Plano</label>
          <select id="s-plan" value={plan?.id} onChange={(e) => setPlanId(e.currentTarget.value)}>
            {plans.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({money(p.amountCents)})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="s-customer">Cliente</label>
          <select
            id="s-customer"
            value={customerId}
            onChange={(e) => {
              setCustomerId(e.currentTarget.value);
              setCard(CARD_BY_EMAIL);
            }}
          >
            <option value={NEW_CUSTOMER}>Novo cliente</option>
            {customers.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.email})
              </option>
            ))}
          </select>
        </div>
        {!customer && (
          <>
            <div>
              <label for="s-name">Nome do cliente</label>
              <input
                id="s-name"
                required
                maxLength={200}
                value={person.name}
                onInput={(e) => setPerson({ ...person, name: e.currentTarget.value })}
                {...fieldMarks(error, 'name', 's-name').attrs}
              />
              {fieldMarks(error, 'name', 's-name').message}
            </div>
            <div>
              <label for="s-email">E-mail do cliente</label>
              <input
                id="s-email"
                type="email"
                required
                maxLength={320}
                value={person.email}
                onInput={(e) => setPerson({ ...person, email: e.currentTarget.value })}
                {...fieldMarks(error, 'email', 's-email').attrs}
              />
              {fieldMarks(error, 'email', 's-email').message}
            </div>
            <div>
              <label for="s-document">CPF ou CNPJ do cliente</label>
              <input
                id="s-document"
                required
                inputMode="numeric"
                maxLength={20}
                value={person.document}
                onInput={(e) => setPerson({ ...person, document: e.currentTarget.value })}
                {...fieldMarks(error, 'document', 's-document').attrs}
              />
              {fieldMarks(error, 'document', 's-document').message}
            </div>
          </>
        )}
        <fieldset>
          <legend>Forma de pagamento</legend>
          {(plan?.methods ?? []).map((m) => (
            <label class="choice" key={m}>
              <input type="radio" name="s-method" checked={chosen === m} onChange={() => setMethod(m)} />{' '}
              {label(METHODS, m)}
            </label>
          ))}
        </fieldset>
        {chosen === 'CREDIT_CARD' && (
          <div>
            <label for="s-card">Cartão</label>
            <select id="s-card" value={card} onChange={(e) => setCard(e.currentTarget.value)}>
              <option value={CARD_BY_EMAIL}>Pedir o cartão ao cliente por e-mail</option>
              {cards.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.brand} final {c.lastFour}
                </option>
              ))}
            </select>
          </div>
        )}
        {chosen === 'BOLETO' &&
          ADDRESS_FIELDS.map(([field, text, max]) => (
            <div key={field}>
              <label for={`s-${field}`}>{text}</label>
              <input
                id={`s-${field}`}
                required
                maxLength={max}
                value={address[field]}
                onInput={(e) => setAddress({ ...address, [field]: e.currentTarget.value })}
              />
            </div>
          ))}
        <div>
          <button type="submit">Criar assinatura</button>
        </div>
      </form>
      {chosen === 'CREDIT_CARD' && card === CARD_BY_EMAIL && (
        <p class="muted">
          O cliente recebe por e-mail a página da assinatura, onde cadastra o cartão; a primeira cobrança é
          feita nesse momento (ou no fim do teste grátis).
        </p>
      )}
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      <ErrorText error={error} />
    </Card>
  );
}

import { useState } from 'preact/hooks';
import { api, type ChargeInput } from '../api';
import { centsOf } from '../ui/format';
import { Card, ErrorText } from '../ui/kit';

const UFS = 'AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' ');

/** Today in São Paulo plus `days`, as YYYY-MM-DD (a boleto's due date is a São Paulo day). */
function spDay(days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

type Fields = {
  method: 'PIX' | 'BOLETO';
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
};

/**
 * "Nova cobrança": a PIX charge or a boleto híbrido opened from the panel through the API's own path (POST
 * /api/sales takes POST /api/transactions's body). A boleto asks what a boleto needs: the due date, and the
 * payer's CPF/CNPJ, name and address. Once issued, the sale's page shows it (the linha digitável, the PDF).
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
  });
  const [error, setError] = useState<unknown>(null);
  const [amountWrong, setAmountWrong] = useState(false);
  const [busy, setBusy] = useState(false);
  const boleto = f.method === 'BOLETO';
  const field = (name: keyof Fields, label: string, attrs: Record<string, unknown> = {}) => (
    <div>
      <label for={`c-${name}`}>{label}</label>
      <input
        id={`c-${name}`}
        required
        value={f[name]}
        onInput={(e) => setF({ ...f, [name]: e.currentTarget.value })}
        {...attrs}
      />
    </div>
  );
  return (
    <>
      <h1>Nova cobrança</h1>
      <Card title="Dados da cobrança">
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            const cents = centsOf(f.amount);
            setAmountWrong(cents === null || cents < 1);
            if (cents === null || cents < 1) return;
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
              ...(boleto && { boleto: { dueDate: f.dueDate } }),
            };
            setBusy(true);
            try {
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
              {(['BOLETO', 'PIX'] as const).map((m) => (
                <label key={m} class="check">
                  <input
                    type="radio"
                    name="c-method"
                    value={m}
                    checked={f.method === m}
                    onInput={() => setF({ ...f, method: m })}
                  />
                  {m === 'BOLETO' ? 'Boleto (com Pix)' : 'PIX'}
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
            {boleto && field('dueDate', 'Vencimento', { type: 'date', min: spDay(0), max: spDay(365) })}
          </div>
          {amountWrong && (
            <p class="error" role="alert">
              Valor inválido: use reais com até duas casas, como 100,00.
            </p>
          )}
          <fieldset>
            <legend>Pagador</legend>
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
          <button type="submit" disabled={busy}>
            {boleto ? 'Emitir boleto' : 'Criar cobrança PIX'}
          </button>
        </form>
        <ErrorText error={error} />
      </Card>
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { api, type Withdrawal } from '../api';
import { date, moneyText, WITHDRAWAL_STATUS } from '../ui/format';
import { Card, ErrorText, Table } from '../ui/kit';

const PIX_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM'];

export function Withdrawals() {
  const [rows, setRows] = useState<Withdrawal[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<Withdrawal | null>(null);
  const load = (after?: string) =>
    api
      .withdrawals({ status, cursor: after })
      .then((p) => {
        setRows((prev) => (after ? [...prev, ...p.data] : p.data));
        setCursor(p.nextCursor);
      })
      .catch(setError);
  useEffect(() => {
    void load();
  }, [status]);
  return (
    <>
      <h1>Saques</h1>
      <NewWithdrawal onDone={() => void load()} />
      <div class="filters">
        <div>
          <label for="w-status">Status</label>
          <select id="w-status" value={status} onInput={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Todos</option>
            {Object.entries(WITHDRAWAL_STATUS).map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <a class="button secondary" href={api.exportUrl('withdrawals', { status })} download>
          Exportar CSV
        </a>
      </div>
      <ErrorText error={error} />
      <Table label="Saques" head={['Data', 'Chave PIX', 'Valor', 'Taxas', 'Status', '']}>
        {rows.map((w) => (
          <tr key={w.id}>
            <td>{date(w.createdAt)}</td>
            <td>{w.pixKey}</td>
            <td>{moneyText(w.amount)}</td>
            <td>{moneyText(w.fees.total)}</td>
            <td>{WITHDRAWAL_STATUS[w.status] ?? w.status}</td>
            <td>
              <button
                type="button"
                class="link"
                onClick={() => setSelected(w)}
                aria-label={`Detalhes do saque ${w.id}`}
              >
                Detalhes
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Carregar mais
        </button>
      )}
      {selected && (
        <Card title={`Saque ${selected.id}`}>
          <dl class="detail">
            <dt>UUID</dt>
            <dd>{selected.uuid}</dd>
            <dt>Status</dt>
            <dd>{WITHDRAWAL_STATUS[selected.status] ?? selected.status}</dd>
            <dt>Valor</dt>
            <dd>{moneyText(selected.amount)}</dd>
            <dt>Taxas</dt>
            <dd>{moneyText(selected.fees.total)}</dd>
            <dt>Líquido</dt>
            <dd>{moneyText(selected.netAmount)}</dd>
            <dt>Chave PIX</dt>
            <dd>
              {selected.pixKey} ({selected.pixKeyType})
            </dd>
            <dt>Atualizado em</dt>
            <dd>{date(selected.updatedAt)}</dd>
          </dl>
          <button type="button" class="secondary" onClick={() => setSelected(null)}>
            Fechar
          </button>
        </Card>
      )}
    </>
  );
}

/** "1.234,56" (pt-BR) or "1234.56" as the API's decimal text; anything else is left for the server to refuse. */
function reaisText(typed: string): string {
  const t = typed.trim();
  return t.includes(',') ? t.replace(/\./g, '').replace(',', '.') : t;
}

/** A withdrawal confirmed with the password; its fees and net amount are shown from the server's answer. */
function NewWithdrawal({ onDone }: { onDone: () => void }) {
  const [amount, setAmount] = useState('');
  const [pixKey, setPixKey] = useState('');
  const [pixKeyType, setPixKeyType] = useState('CPF');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<Withdrawal | null>(null);
  const [busy, setBusy] = useState(false);
  const [key, setKey] = useState(() => crypto.randomUUID());
  // with two-factor login on, the code of the authenticator app confirms instead of the password
  const totp = api.user()?.totpEnabled === true;
  return (
    <Card title="Novo saque">
      <form
        class="filters"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const confirm = totp ? { totpCode: password } : { password };
            const w = await api.withdraw({ amount: reaisText(amount), pixKey, pixKeyType, ...confirm }, key);
            setDone(w);
            setPassword('');
            setKey(crypto.randomUUID());
            onDone();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <div>
          <label for="n-amount">Valor (R$)</label>
          <input
            id="n-amount"
            inputMode="decimal"
            required
            placeholder="100,00"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="n-type">Tipo de chave</label>
          <select id="n-type" value={pixKeyType} onInput={(e) => setPixKeyType(e.currentTarget.value)}>
            {PIX_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="n-key">Chave PIX</label>
          <input id="n-key" required value={pixKey} onInput={(e) => setPixKey(e.currentTarget.value)} />
        </div>
        <div>
          <label for="n-password">{totp ? 'Código do autenticador' : 'Confirme com sua senha'}</label>
          {totp ? (
            <input
              id="n-password"
              inputMode="numeric"
              required
              autocomplete="one-time-code"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          ) : (
            <input
              id="n-password"
              type="password"
              required
              autocomplete="current-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </div>
        <button type="submit" disabled={busy}>
          Solicitar saque
        </button>
      </form>
      <p class="muted">
        As taxas da sua conta são descontadas do valor; o valor líquido e as taxas aparecem ao concluir.
      </p>
      <ErrorText error={error} />
      {done && (
        <p class="ok" role="status">
          Saque {done.id} solicitado: {moneyText(done.amount)}, taxas {moneyText(done.fees.total)}, líquido{' '}
          {moneyText(done.netAmount)}.
        </p>
      )}
    </Card>
  );
}

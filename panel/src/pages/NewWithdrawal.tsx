import { useEffect, useState } from 'preact/hooks';
import { api, type FeePreview, type WithdrawalCreated } from '../api';
import { moneyText } from '../ui/format';
import { Card, ErrorText } from '../ui/kit';
import { PIX_KEY_TYPES } from '../ui/labels';

/** "1.234,56" (pt-BR) or "1234.56" as the API's decimal text; anything else is left for the server to refuse. */
function reaisText(typed: string): string {
  const t = typed.trim();
  return t.includes(',') ? t.replace(/\./g, '').replace(',', '.') : t;
}

/**
 * A withdrawal confirmed with the password (the two-factor code when it is on). While the amount is typed, the server's fee preview (the
 * creation's own rules and fees, at the account's rates) shows what will be charged before anything is sent.
 */
export function NewWithdrawal({ onDone }: { onDone: () => void }) {
  const [amount, setAmount] = useState('');
  const [pixKey, setPixKey] = useState('');
  const [pixKeyType, setPixKeyType] = useState('CPF');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<WithdrawalCreated | null>(null);
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
            aria-describedby="n-preview"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="n-type">Tipo de chave</label>
          <select id="n-type" value={pixKeyType} onInput={(e) => setPixKeyType(e.currentTarget.value)}>
            {Object.entries(PIX_KEY_TYPES).map(([v, t]) => (
              <option key={v} value={v}>
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
      <Preview amount={reaisText(amount)} />
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

/** The fees of the amount being typed, asked of the server a moment after the typing stops. */
function Preview({ amount }: { amount: string }) {
  const [preview, setPreview] = useState<FeePreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setPreview(null);
    setError(null);
    if (!amount) return;
    let live = true;
    const timer = setTimeout(() => {
      api.feePreview(amount).then(
        (p) => live && setPreview(p),
        (err: unknown) => live && setError(err),
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [amount]);
  return (
    <div id="n-preview" aria-live="polite">
      {preview ? (
        <dl class="detail" aria-label="Prévia do saque">
          <dt>Valor do saque</dt>
          <dd>{moneyText(preview.amount)}</dd>
          <dt>Taxas</dt>
          <dd>
            {moneyText(preview.fees.total)} ({moneyText(preview.fees.fixed)} fixa +{' '}
            {moneyText(preview.fees.variable)} variável)
          </dd>
          <dt>Total debitado do saldo</dt>
          <dd>{moneyText(preview.debited)}</dd>
          <dt>Você recebe na chave PIX</dt>
          <dd>{moneyText(preview.netAmount)}</dd>
        </dl>
      ) : (
        !error && <p class="muted">Digite o valor para ver as taxas antes de enviar.</p>
      )}
      <ErrorText error={error} />
    </div>
  );
}

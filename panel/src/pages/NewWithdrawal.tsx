import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type FeePreview, type WithdrawalCreated } from '../api';
import { money, moneyText, reaisText } from '../ui/format';
import { Card, ErrorText, fieldMarks, Options } from '../ui/kit';
import { PIX_KEY_TYPES } from '../ui/labels';
import { maskPixKey, pixKeyForApi, pixKeyProblem } from '../ui/pix-key';

/** The contract's minimum withdrawal (MINIMUM_VALUE below it), shown with its fee before anything is typed. */
const MINIMUM = '100.00';

/**
 * A withdrawal confirmed with the password (the two-factor code when it is on). While the amount is typed, the server's fee preview (the
 * creation's own rules and fees, at the account's rates) shows what will be charged before anything is sent.
 */
export function NewWithdrawal({ onDone, moved = 0 }: { onDone: () => void; moved?: number }) {
  const [amount, setAmount] = useState('');
  const [pixKey, setPixKey] = useState('');
  const [pixKeyType, setPixKeyType] = useState('CPF');
  /** A key plainly wrong for its type (a CPF without 11 digits), said beside the field before anything is sent. */
  const [keyProblem, setKeyProblem] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  // the preview's refusal of the amount typed (below the minimum, …): the same refusal of the submit is not repeated
  const [previewCode, setPreviewCode] = useState<string | null>(null);
  const [done, setDone] = useState<WithdrawalCreated | null>(null);
  const [busy, setBusy] = useState(false);
  const [available, setAvailable] = useState<number | null>(null);
  const [fresh, setFresh] = useState(0);
  const [fee, setFee] = useState<string | null>(null);
  useEffect(() => {
    api.balance().then(
      (b) => setAvailable(b.available),
      () => setAvailable(null),
    );
  }, [fresh, moved]);
  useEffect(() => {
    // the server's own fee rules at the minimum: its fixed fee, and its variable one as a percent (of R$ 100,00)
    api.feePreview(MINIMUM).then(
      (p) => setFee(feeRule(p)),
      () => setFee(null),
    );
  }, []);
  // One Idempotency-Key per withdrawal attempt: kept for a retry of the same request whose outcome is unknown
  // (no answer, a 5xx, or still in progress), renewed after any final answer or a change of what is sent. The
  // server keeps a refusal under its key: reusing it for a lower amount would answer IDEMPOTENCY_KEY_REUSED.
  const [attempt, setAttempt] = useState<{ key: string; body: string } | null>(null);
  // with two-factor login on, the code of the authenticator app confirms instead of the password
  const totp = api.user()?.totpEnabled === true;
  return (
    <Card title="Novo saque">
      <p class="muted" data-testid="withdrawal-available">
        Saldo disponível: {available === null ? '…' : money(available)}
      </p>
      <p class="muted" data-testid="withdrawal-terms">
        Valor mínimo {moneyText(MINIMUM)}
        {fee === 'none' ? '; sem taxa' : fee && `; taxa de cada saque: ${fee}, descontada do valor`}.
      </p>
      <form
        class="filters"
        onSubmit={async (e) => {
          e.preventDefault();
          setDone(null); // one answer on screen: this attempt's
          // a CPF, CNPJ or phone of the wrong length is said in its type's words before anything is sent
          const problem = pixKeyProblem(pixKeyType, pixKey);
          setKeyProblem(problem);
          if (problem) {
            setError(null);
            return;
          }
          setBusy(true);
          setError(null);
          try {
            const order = { amount: reaisText(amount), pixKey: pixKeyForApi(pixKeyType, pixKey), pixKeyType };
            const body = JSON.stringify(order);
            const key = attempt?.body === body ? attempt.key : crypto.randomUUID();
            setAttempt({ key, body });
            const confirm = totp ? { totpCode: password } : { password };
            const w = await api.withdraw({ ...order, ...confirm }, key);
            setDone(w);
            // the form starts over: sending it again must be a new withdrawal typed on purpose
            setAmount('');
            setPixKey('');
            setPassword('');
            setAttempt(null);
            setFresh((n) => n + 1);
            onDone();
          } catch (err) {
            if (!outcomeUnknown(err)) setAttempt(null);
            // a 401 here is the confirmation refused (the session itself is checked before it); a code is good
            // once (replays are refused): after any answer that used it, the next one is needed
            const refused = err instanceof ApiError && err.status === 401;
            setError(
              refused ? new ApiError(401, err.message, totp ? 'TOTP_CODE_REFUSED' : 'PASSWORD_REFUSED') : err,
            );
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
            onInput={(e) => {
              setAmount(e.currentTarget.value);
              // the last answer was about another amount; the preview speaks for this one
              setError(null);
              setDone(null);
            }}
            {...fieldMarks(error, 'amount', 'n-amount').attrs}
          />
          {fieldMarks(error, 'amount', 'n-amount').message}
        </div>
        <div>
          <label for="n-type">Tipo de chave</label>
          <select
            id="n-type"
            value={pixKeyType}
            onInput={(e) => {
              const type = e.currentTarget.value;
              setPixKeyType(type);
              setPixKey((key) => maskPixKey(type, key));
            }}
          >
            <Options labels={PIX_KEY_TYPES} />
          </select>
        </div>
        <div>
          <label for="n-key">Chave PIX</label>
          <input
            id="n-key"
            required
            placeholder={KEY_EXAMPLES[pixKeyType]}
            inputMode={pixKeyType === 'EMAIL' || pixKeyType === 'RANDOM' ? 'text' : 'tel'}
            value={pixKey}
            onInput={(e) => {
              const masked = maskPixKey(pixKeyType, e.currentTarget.value);
              // written back at once, so the field shows the mask as it is typed
              e.currentTarget.value = masked;
              setPixKey(masked);
              setKeyProblem(null);
            }}
            {...(keyProblem
              ? { 'aria-invalid': 'true' as const, 'aria-describedby': 'n-key-error' }
              : fieldMarks(error, 'pixKey', 'n-key').attrs)}
          />
          {keyProblem ? (
            <p id="n-key-error" class="error field-error">
              {keyProblem}
            </p>
          ) : (
            fieldMarks(error, 'pixKey', 'n-key').message
          )}
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
              autocomplete="off"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </div>
        <button type="submit" disabled={busy}>
          Solicitar saque
        </button>
      </form>
      <Preview amount={reaisText(amount)} onRefused={setPreviewCode} />
      <ErrorText error={error instanceof ApiError && error.code === previewCode ? null : error} />
      {done && (
        <p class="ok" role="status">
          Saque {done.id} solicitado: {moneyText(done.amount)}, taxas {moneyText(done.fees.total)}, líquido{' '}
          {moneyText(done.netAmount)}.
          {done.approval?.status === 'awaiting' &&
            ' Ele precisa da aprovação de outra pessoa da equipe antes de ser pago; o valor fica bloqueado até lá.'}
        </p>
      )}
    </Card>
  );
}

/** How each key type is written (a phone with its area code, with or without +55). */
const KEY_EXAMPLES: Record<string, string> = {
  CPF: '000.000.000-00',
  CNPJ: '00.000.000/0000-00',
  EMAIL: 'nome@exemplo.com.br',
  PHONE: '(11) 99999-8888',
  RANDOM: '123e4567-e89b-12d3-a456-426614174000',
};

/** A withdrawal's fee rule read off the preview of R$ 100,00: the fixed part and the variable part's percent ('none': free). */
function feeRule(p: FeePreview): string {
  const fixed = moneyText(p.fees.fixed);
  const variable = Number(p.fees.variable); // reais of R$ 100,00: the percent itself
  if (variable === 0) return Number(p.fees.fixed) === 0 ? 'none' : fixed;
  const percent = variable.toLocaleString('pt-BR', { maximumFractionDigits: 2 });
  return `${fixed} + ${percent}% do valor`;
}

/** No answer, a server error or the same key still in progress: the withdrawal may exist, so a retry reuses its key. */
function outcomeUnknown(err: unknown): boolean {
  return !(err instanceof ApiError) || err.status >= 500 || err.code === 'IDEMPOTENCY_KEY_IN_USE';
}

/** The fees of the amount being typed, asked of the server a moment after the typing stops. */
function Preview({ amount, onRefused }: { amount: string; onRefused: (code: string | null) => void }) {
  const [preview, setPreview] = useState<FeePreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setPreview(null);
    setError(null);
    onRefused(null);
    if (!amount) return;
    let live = true;
    const timer = setTimeout(() => {
      api.feePreview(amount).then(
        (p) => live && setPreview(p),
        (err: unknown) => {
          if (!live) return;
          setError(err);
          onRefused(err instanceof ApiError ? err.code : null);
        },
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

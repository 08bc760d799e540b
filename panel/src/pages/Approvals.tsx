import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, can, type Withdrawal } from '../api';
import { date, moneyText } from '../ui/format';
import { Card, ErrorText, Table } from '../ui/kit';

/**
 * The public keys this user made, for the withdrawals they asked for (an owner's or admin's: the roles that
 * both make keys and approve). One read shared by the forms of a page, read again a little later.
 */
let myKeys: { at: number; keys: Promise<Set<string>> } | null = null;
function useMyKeys(): Set<string> {
  const [keys, setKeys] = useState<Set<string>>(new Set());
  useEffect(() => {
    if (!can('integrations')) return;
    if (!myKeys || Date.now() - myKeys.at > 10_000) {
      const email = api.user()?.email;
      myKeys = {
        at: Date.now(),
        keys: api
          .credentials()
          .then((list) => new Set(list.filter((c) => c.createdBy === email).map((c) => c.publicKey)))
          .catch(() => new Set<string>()),
      };
    }
    void myKeys.keys.then(setKeys);
  }, []);
  return keys;
}

/**
 * Approve or decline a withdrawal awaiting approval, confirmed with the password (the two-factor code when it
 * is on). Shown to users who may approve; for a withdrawal they asked for themselves, or their key did, decline
 * only.
 */
export function Decide({
  withdrawal,
  onDecided,
}: {
  withdrawal: Withdrawal;
  onDecided: (w: Withdrawal) => void;
}) {
  const me = api.user();
  const totp = me?.totpEnabled === true;
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const keys = useMyKeys();
  if (withdrawal.approval?.status !== 'awaiting' || !can('withdrawals.create')) return null;
  // the user's own request, or a request of a key they made: they may decline it, never approve it (the server
  // checks the same)
  const mine = withdrawal.approval.requestedBy === me?.email;
  const byMyKey = mine || keys.has(withdrawal.approval.requestedBy.replace(/^api_key:/, ''));
  const decide = async (step: 'approve' | 'decline') => {
    setBusy(true);
    setError(null);
    try {
      const confirmation = totp ? { totpCode: secret } : { password: secret };
      onDecided(await api.decide(withdrawal.id, step, confirmation));
      setSecret('');
    } catch (err) {
      // a 401 here is the confirmation refused, not the session
      const refused = err instanceof ApiError && err.status === 401;
      setError(
        refused ? new ApiError(401, err.message, totp ? 'TOTP_CODE_REFUSED' : 'PASSWORD_REFUSED') : err,
      );
      setSecret('');
    } finally {
      setBusy(false);
    }
  };
  const field = `decide-${withdrawal.id}`;
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        // Enter approves; a request of the user's own key is only declined, by its button
        if (!byMyKey) void decide('approve');
      }}
    >
      <div>
        <label for={field}>{totp ? 'Código do autenticador' : 'Sua senha'}</label>
        {totp ? (
          <input
            id={field}
            inputMode="numeric"
            autocomplete="one-time-code"
            required
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        ) : (
          <input
            id={field}
            type="password"
            autocomplete="current-password"
            required
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        )}
      </div>
      {byMyKey ? (
        <p class="muted">
          {mine ? 'Você pediu este saque' : 'Uma credencial criada por você pediu este saque'}: outra pessoa
          da equipe precisa aprová-lo. Você pode recusá-lo.
        </p>
      ) : (
        <button type="submit" disabled={busy}>
          Aprovar saque
        </button>
      )}
      <button
        type="button"
        class="danger"
        disabled={busy || secret === ''}
        onClick={() => void decide('decline')}
      >
        Recusar saque
      </button>
      <ErrorText error={error} />
    </form>
  );
}

/** `#/saques/aprovacoes`: the withdrawals waiting for a second person, oldest decisions first to expire. */
export function Approvals() {
  const [rows, setRows] = useState<Withdrawal[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<Withdrawal | null>(null);
  const load = () =>
    api
      .withdrawals({ approval: 'awaiting', limit: '100' })
      .then((p) => setRows(p.data))
      .catch(setError);
  useEffect(() => {
    void load();
  }, []);
  return (
    <>
      <h1>Saques aguardando aprovação</h1>
      <p class="muted">
        O valor de cada saque fica bloqueado até a decisão. Sem decisão em 72 horas, o saque é recusado e o
        valor volta ao saldo disponível.
      </p>
      <ErrorText error={error} />
      {done && (
        <p class="ok" role="status">
          Saque {done.id}{' '}
          {done.approval?.status === 'approved'
            ? 'aprovado: enviado para pagamento.'
            : 'recusado: o valor voltou ao saldo disponível.'}
        </p>
      )}
      <Table
        label="Saques aguardando aprovação"
        head={['Pedido em', 'Pedido por', 'Chave PIX', 'Valor']}
        empty={rows?.length === 0 && 'Nenhum saque aguardando aprovação.'}
      >
        {(rows ?? []).map((w) => (
          <tr key={w.id}>
            <td>{date(w.createdAt)}</td>
            <td class="text">{w.approval?.requestedBy}</td>
            <td class="text">{w.pixKey}</td>
            <td class="money">{moneyText(w.amount)}</td>
          </tr>
        ))}
      </Table>
      {(rows ?? []).map((w) => (
        <Card key={w.id} title={`Saque ${w.id}: ${moneyText(w.amount)} para ${w.pixKey}`}>
          <Decide
            withdrawal={w}
            onDecided={(decided) => {
              setDone(decided);
              void load();
            }}
          />
          {!can('withdrawals.create') && <p class="muted">Seu papel não permite aprovar saques.</p>}
        </Card>
      ))}
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type Invited, type OperatorRole, type OperatorView } from '../api';
import { OPERATOR_ROLE, OPERATOR_STATUS } from '../labels';

/**
 * Operadores: who runs the gateway, and invitations (admin). An invitation's link goes by e-mail to the
 * invitee only: the page says it was sent, and can send a fresh one (the earlier link stops working).
 */
export function Operators() {
  const [rows, setRows] = useState<OperatorView[] | null>(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OperatorRole>('support');
  const [sent, setSent] = useState<{ email: string; again: boolean } | null>(null);
  const list = useAttempt();
  const invite = useAttempt(() => setSent(null));
  const resend = useAttempt(() => setSent(null));
  const sentTo = (invited: Invited, again: boolean) => setSent({ email: invited.operator.email, again });
  const load = () => list.attempt(async () => setRows((await api.operators()).data));
  useEffect(() => {
    void load();
  }, []);
  return (
    <section>
      <h1>Operadores</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void invite.attempt(async () => {
            sentTo(await api.invite(email, role), false);
            setEmail('');
            await load();
          });
        }}
      >
        <div>
          <label for="op-email">E-mail</label>
          <input
            id="op-email"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="op-role">Papel</label>
          <select id="op-role" value={role} onChange={(e) => setRole(e.currentTarget.value as OperatorRole)}>
            <Options labels={OPERATOR_ROLE} />
          </select>
        </div>
        <button type="submit">Convidar</button>
      </form>
      <ErrorText error={invite.error} />
      <ErrorText error={resend.error} />
      {sent && (
        <p class="notice" role="status">
          {sent.again ? 'Novo convite enviado' : 'Convite enviado'} por e-mail para {sent.email}. O link
          (válido por 72 horas) vai só para a caixa de entrada do convidado
          {sent.again ? '; o link anterior deixou de valer.' : '.'}
        </p>
      )}
      <ErrorText error={list.error} />
      {rows && (
        <Table
          label="Operadores"
          head={['E-mail', 'Papel', 'Situação', 'Convidado em', 'Último acesso', 'Convite']}
        >
          {rows.map((o) => (
            <tr key={o.id}>
              <td>{o.email}</td>
              <td>{label(OPERATOR_ROLE, o.role)}</td>
              <td>{label(OPERATOR_STATUS, o.status)}</td>
              <td>{date(o.createdAt)}</td>
              <td>{o.lastLoginAt ? date(o.lastLoginAt) : '—'}</td>
              <td>
                {o.status === 'invited' || o.status === 'enrolling' ? (
                  <button
                    type="button"
                    aria-label={`Reenviar convite para ${o.email}`}
                    onClick={() =>
                      void resend.attempt(async () => {
                        sentTo(await api.resendInvitation(o.id), true);
                        await load();
                      })
                    }
                  >
                    Reenviar convite
                  </button>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

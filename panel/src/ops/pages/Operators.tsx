import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type Invited, type OperatorRole, type OperatorView } from '../api';
import { Decision } from '../Decision';
import { OPERATOR_ROLE, OPERATOR_STATUS } from '../labels';

/**
 * Operadores: who runs the gateway, and invitations (admin). An invitation's link goes by e-mail to the
 * invitee only: the page says it was sent, and can send a fresh one (the earlier link stops working).
 */
export function Operators() {
  const [rows, setRows] = useState<OperatorView[] | null>(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OperatorRole>('support');
  const list = useAttempt();
  /** What the page says once an invitation went out (announced at its top, as every console decision). */
  const sentTo = (invited: Invited, again: boolean) =>
    `${again ? 'Novo convite enviado' : 'Convite enviado'} por e-mail para ${invited.operator.email}. O link ` +
    `(válido por 72 horas) vai só para a caixa de entrada do convidado${again ? '; o link anterior deixou de valer.' : '.'}`;
  const load = () => list.attempt(async () => setRows((await api.operators()).data));
  useEffect(() => {
    void load();
  }, []);
  return (
    <section>
      <h1>Operadores</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
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
        <Decision
          submit
          label="Convidar"
          title="Convidar operador?"
          run={async () => {
            const message = sentTo(await api.invite(email, role), false);
            setEmail('');
            await load();
            return message;
          }}
        >
          <p>
            {email} recebe por e-mail um link para criar a senha e ativar o segundo fator, com o papel{' '}
            {label(OPERATOR_ROLE, role)}.
          </p>
        </Decision>
      </form>
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
                  <Decision
                    label="Reenviar convite"
                    ariaLabel={`Reenviar convite para ${o.email}`}
                    title={`Reenviar o convite para ${o.email}?`}
                    run={async () => {
                      const message = sentTo(await api.resendInvitation(o.id), true);
                      await load();
                      return message;
                    }}
                  >
                    <p>Um novo link vai por e-mail para {o.email}; o link anterior deixa de valer.</p>
                  </Decision>
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

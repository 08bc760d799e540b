import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { CopyButton, ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type Invited, type OperatorRole, type OperatorView } from '../api';
import { OPERATOR_ROLE, OPERATOR_STATUS } from '../labels';

/** Operadores: who runs the gateway, and invitations (admin). */
export function Operators() {
  const [rows, setRows] = useState<OperatorView[] | null>(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OperatorRole>('support');
  const [invited, setInvited] = useState<Invited | null>(null);
  const list = useAttempt();
  const invite = useAttempt(() => setInvited(null));
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
            setInvited(await api.invite(email, role));
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
      {invited && (
        <p class="notice" role="status">
          Convite enviado para {invited.operator.email}. O link (válido por 72 horas) aparece só agora:{' '}
          <code>{invited.invitationUrl}</code> <CopyButton text={invited.invitationUrl} label="Copiar link" />
        </p>
      )}
      <ErrorText error={list.error} />
      {rows && (
        <Table label="Operadores" head={['E-mail', 'Papel', 'Situação', 'Convidado em', 'Último acesso']}>
          {rows.map((o) => (
            <tr key={o.id}>
              <td>{o.email}</td>
              <td>{label(OPERATOR_ROLE, o.role)}</td>
              <td>{label(OPERATOR_STATUS, o.status)}</td>
              <td>{date(o.createdAt)}</td>
              <td>{o.lastLoginAt ? date(o.lastLoginAt) : '—'}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

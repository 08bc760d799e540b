import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type Invited, type Operator, type OperatorRole, type OperatorView } from '../api';
import { Decision } from '../Decision';
import { OPERATOR_ROLE, OPERATOR_STATUS } from '../labels';

/**
 * Operadores: who runs the gateway, and invitations (admin). An invitation's link goes by e-mail to the
 * invitee only: the page says it was sent, and can send a fresh one (the earlier link stops working). An admin
 * changes another operator's role, disables the access of someone who left (their sessions end at once) and
 * invites them again if they come back; never their own (another admin does).
 */
export function Operators({ operator }: { operator: Operator }) {
  const [rows, setRows] = useState<OperatorView[] | null>(null);
  const me = operator.id;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OperatorRole>('support');
  const list = useAttempt();
  /** What the page says once an invitation went out (announced at its top, as every console decision). */
  const sentTo = (invited: Invited, again: boolean) =>
    `${again ? 'Novo convite enviado' : 'Convite enviado'} por e-mail para ${invited.operator.email}. O link ` +
    `(válido por 72 horas) vai só para a caixa de entrada do convidado${again ? '; o link anterior deixou de valer.' : '.'}`;
  const load = () =>
    list.attempt(async () => {
      setRows((await api.operators()).data);
    });
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
          head={['E-mail', 'Papel', 'Situação', 'Convidado em', 'Último acesso', 'Ações']}
        >
          {rows.map((o) => (
            <tr key={o.id}>
              <td>{o.email}</td>
              <td>{label(OPERATOR_ROLE, o.role)}</td>
              <td>{label(OPERATOR_STATUS, o.status)}</td>
              <td>{date(o.createdAt)}</td>
              <td>{o.lastLoginAt ? date(o.lastLoginAt) : '—'}</td>
              <td class="actions">
                {o.id === me ? (
                  <span class="muted">Você</span>
                ) : (
                  <>
                    {o.status !== 'active' && (
                      <Decision
                        label={o.status === 'disabled' ? 'Convidar de novo' : 'Reenviar convite'}
                        ariaLabel={`${o.status === 'disabled' ? 'Convidar de novo' : 'Reenviar convite para'} ${o.email}`}
                        title={
                          o.status === 'disabled'
                            ? `Convidar ${o.email} de novo?`
                            : `Reenviar o convite para ${o.email}?`
                        }
                        run={async () => {
                          const message = sentTo(await api.resendInvitation(o.id), o.status !== 'disabled');
                          await load();
                          return message;
                        }}
                      >
                        {o.status === 'disabled' ? (
                          <p>
                            {o.email} recebe por e-mail um link para criar uma senha e cadastrar o
                            autenticador de novo, com o papel {label(OPERATOR_ROLE, o.role)}.
                          </p>
                        ) : (
                          <p>Um novo link vai por e-mail para {o.email}; o link anterior deixa de valer.</p>
                        )}
                      </Decision>
                    )}
                    {o.status === 'active' && <RoleChange operator={o} onDone={load} />}
                    {o.status !== 'disabled' && (
                      <Decision
                        danger
                        label="Desativar"
                        ariaLabel={`Desativar ${o.email}`}
                        title={`Desativar o acesso de ${o.email}?`}
                        confirmLabel="Desativar"
                        run={async () => {
                          const { operator } = await api.disableOperator(o.id);
                          await load();
                          return `Acesso de ${operator.email} desativado: as sessões abertas terminaram.`;
                        }}
                      >
                        <p>
                          As sessões abertas de {o.email} terminam agora, e a senha e o autenticador deixam de
                          valer. Só um novo convite devolve o acesso.
                        </p>
                      </Decision>
                    )}
                  </>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

/** Another operator's role, chosen in the decision's dialog. */
function RoleChange({ operator, onDone }: { operator: OperatorView; onDone: () => Promise<unknown> }) {
  const [role, setRole] = useState<OperatorRole>(operator.role);
  const id = `role-of-${operator.id}`;
  return (
    <Decision
      label="Mudar papel"
      ariaLabel={`Mudar papel de ${operator.email}`}
      title={`Mudar o papel de ${operator.email}?`}
      onOpen={() => setRole(operator.role)}
      ready={role !== operator.role}
      waiting="Escolha um papel diferente do atual para confirmar."
      run={async () => {
        const changed = (await api.changeOperatorRole(operator.id, role)).operator;
        await onDone();
        return `${changed.email} agora tem o papel ${label(OPERATOR_ROLE, changed.role)}.`;
      }}
    >
      <p>
        O papel vale a partir da próxima ação de {operator.email}. Hoje: {label(OPERATOR_ROLE, operator.role)}
        .
      </p>
      <label for={id}>Novo papel</label>
      <select id={id} value={role} onChange={(e) => setRole(e.currentTarget.value as OperatorRole)}>
        <Options labels={OPERATOR_ROLE} />
      </select>
    </Decision>
  );
}

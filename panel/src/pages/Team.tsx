import { useEffect, useState } from 'preact/hooks';
import { api, type Invitation, type Role, type TeamMember } from '../api';
import { FormError } from '../ui/api-error';
import { date, money, reaisText } from '../ui/format';
import { Card, ErrorText, fieldMarks, Options, Table } from '../ui/kit';
import { label, ROLE_HELP, ROLES } from '../ui/labels';

/** Equipe: the account's users and invitations, their roles, and the withdrawal approval rule. */
export function Team() {
  const [members, setMembers] = useState<TeamMember[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const me = api.user();
  const load = () =>
    api
      .team()
      .then((r) => setMembers(r.data))
      .catch(setError);
  useEffect(() => {
    void load();
  }, []);
  // only an owner makes, changes or removes an owner
  const roleChoices =
    me?.role === 'owner' ? ROLES : Object.fromEntries(Object.entries(ROLES).filter(([r]) => r !== 'owner'));
  // the account always keeps an owner: the only active one can be neither removed nor given another role
  const owners = (members ?? []).filter((m) => m.role === 'owner' && m.status !== 'invited').length;
  return (
    <>
      <h1>Equipe</h1>
      <Invite roles={roleChoices} onDone={() => void load()} />
      <Card title="Usuários">
        <ErrorText error={error} />
        <Table
          label="Usuários da conta"
          head={['Nome', 'E-mail', 'Papel', 'Situação', 'Último acesso', '']}
          empty={members?.length === 0 && 'Nenhum usuário.'}
        >
          {(members ?? []).map((m) => (
            <Member
              key={m.id}
              member={m}
              roles={roleChoices}
              locked={
                m.role === 'owner' && (me?.role !== 'owner' || (owners === 1 && m.status !== 'invited'))
              }
              onChanged={() => void load()}
              onError={setError}
            />
          ))}
        </Table>
        <ul class="muted">
          {Object.entries(ROLE_HELP).map(([role, what]) => (
            <li key={role}>
              <strong>{label(ROLES, role)}</strong>: {what}.
            </li>
          ))}
        </ul>
      </Card>
      <ApprovalRule />
    </>
  );
}

function Member(props: {
  member: TeamMember;
  roles: Record<string, string>;
  locked: boolean;
  onChanged: () => void;
  onError: (err: unknown) => void;
}) {
  const m = props.member;
  const [confirming, setConfirming] = useState(false);
  return (
    <tr>
      <td class="text">{m.name}</td>
      <td class="text">{m.email}</td>
      <td>
        {props.locked ? (
          label(ROLES, m.role)
        ) : (
          <select
            aria-label={`Papel de ${m.name}`}
            value={m.role}
            onInput={async (e) => {
              const role = e.currentTarget.value as Role;
              try {
                await api.changeRole(m.id, role);
                props.onError(null);
              } catch (err) {
                props.onError(err);
              }
              props.onChanged();
            }}
          >
            <Options labels={props.roles} />
          </select>
        )}
      </td>
      <td>{m.status === 'invited' ? 'Convite enviado' : 'Ativo'}</td>
      <td>{date(m.lastLoginAt)}</td>
      <td>
        {!props.locked &&
          (confirming ? (
            <span class="actions">
              <button
                type="button"
                class="danger"
                onClick={async () => {
                  try {
                    await api.removeUser(m.id);
                    props.onError(null);
                  } catch (err) {
                    props.onError(err);
                  }
                  setConfirming(false);
                  props.onChanged();
                }}
              >
                Confirmar remoção
              </button>
              <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                Cancelar
              </button>
            </span>
          ) : (
            <button
              type="button"
              class="secondary"
              aria-label={m.status === 'invited' ? `Cancelar convite de ${m.name}` : `Remover ${m.name}`}
              onClick={() => setConfirming(true)}
            >
              {m.status === 'invited' ? 'Cancelar convite' : 'Remover'}
            </button>
          ))}
      </td>
    </tr>
  );
}

function Invite({ roles, onDone }: { roles: Record<string, string>; onDone: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [sent, setSent] = useState<Invitation | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Card title="Convidar pessoa">
      <form
        class="filters"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          setSent(null);
          try {
            setSent(await api.invite({ email, name, role }));
            setEmail('');
            setName('');
            onDone();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <div>
          <label for="invite-name">Nome</label>
          <input
            id="invite-name"
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...fieldMarks(error, 'name', 'invite-name').attrs}
          />
          {fieldMarks(error, 'name', 'invite-name').message}
        </div>
        <div>
          <label for="invite-email">E-mail</label>
          <input
            id="invite-email"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            {...fieldMarks(error, 'email', 'invite-email').attrs}
          />
          {fieldMarks(error, 'email', 'invite-email').message}
        </div>
        <div>
          <label for="invite-role">Papel</label>
          <select id="invite-role" value={role} onInput={(e) => setRole(e.currentTarget.value as Role)}>
            <Options labels={roles} />
          </select>
        </div>
        <button type="submit" disabled={busy}>
          Enviar convite
        </button>
      </form>
      <ErrorText error={error} />
      {sent && (
        <p class="notice" role="status">
          Convite enviado para {sent.email}. O link vale até {date(sent.expiresAt)}.
        </p>
      )}
    </Card>
  );
}

function ApprovalRule() {
  const [threshold, setThreshold] = useState<number | null | undefined>(undefined);
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    api
      .approvalRule()
      .then((r) => {
        setThreshold(r.thresholdCents);
        setTyped(r.thresholdCents === null ? '' : String(r.thresholdCents / 100).replace('.', ','));
      })
      .catch(setError);
  }, []);
  const save = async (cents: number | null) => {
    setError(null);
    setSaved(false);
    try {
      const r = await api.setApprovalRule(cents);
      setThreshold(r.thresholdCents);
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title="Aprovação de saques">
      <p>
        {threshold === undefined
          ? 'Carregando…'
          : threshold === null
            ? 'Desligada: todo saque vai direto para pagamento.'
            : `Saques a partir de ${money(threshold)} esperam a aprovação de outra pessoa da equipe (proprietário, administrador ou financeiro).`}
      </p>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const cents = Math.round(Number(reaisText(typed)) * 100);
          if (!Number.isFinite(cents) || cents < 1) {
            setError(new FormError('Informe um valor em reais, por exemplo 1.000,00.'));
            return;
          }
          void save(cents);
        }}
      >
        <div>
          <label for="approval-threshold">Valor a partir do qual o saque precisa de aprovação (R$)</label>
          <input
            id="approval-threshold"
            inputMode="decimal"
            required
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        </div>
        <button type="submit">Salvar</button>
        {threshold !== null && threshold !== undefined && (
          <button type="button" class="secondary" onClick={() => void save(null)}>
            Desligar aprovação
          </button>
        )}
      </form>
      <ErrorText error={error} />
      {saved && (
        <p class="notice" role="status">
          Regra salva.
        </p>
      )}
    </Card>
  );
}

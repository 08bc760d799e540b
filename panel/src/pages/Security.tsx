import { useEffect, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import type { AuditAction } from '../../../src/audit/audit.data';
import { type AuditEntry, api, can } from '../api';
import { date } from '../ui/format';
import { Card, ErrorText, SecretOnce, Table, useAttempt } from '../ui/kit';
import { agentSummary, auditTarget, operatorLabel } from '../ui/labels';

export function Security() {
  return (
    <>
      <h1>Segurança</h1>
      <TwoFactor />
      {can('audit') && <AuditLog />}
    </>
  );
}

function TwoFactor() {
  const [on, setOn] = useState(api.user()?.totpEnabled === true);
  const [setup, setSetup] = useState<{ secret: string; qr: string } | null>(null);
  const [code, setCode] = useState('');
  const [done, setDone] = useState('');
  const { error, act } = useAttempt(() => setDone(''));
  const codeField = (
    <div>
      <label for="totp-code">Código de 6 dígitos do aplicativo</label>
      <input
        id="totp-code"
        inputMode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9]{6}"
        required
        value={code}
        onInput={(e) => setCode(e.currentTarget.value)}
      />
    </div>
  );
  return (
    <Card title="Verificação em duas etapas">
      <p role="status">
        {on
          ? 'Ativada: o login e os saques pelo painel pedem o código do aplicativo autenticador.'
          : 'Desativada: o login pede só e-mail e senha.'}
      </p>
      {!on && !setup && (
        <button
          type="button"
          onClick={() =>
            void act(async () => {
              const s = await api.totpSetup();
              setSetup({
                secret: s.secret,
                qr: await QRCode.toDataURL(s.otpauthUrl, { margin: 1, width: 200 }),
              });
            })
          }
        >
          Configurar aplicativo autenticador
        </button>
      )}
      {!on && setup && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => {
              await api.totpEnable(code);
              await api.me();
              setOn(true);
              setSetup(null);
              setCode('');
              setDone('Verificação em duas etapas ativada.');
            });
          }}
        >
          <p>Leia o QR code com o aplicativo autenticador (Google Authenticator, Authy, 1Password…).</p>
          <img src={setup.qr} width={200} height={200} alt="QR code da verificação em duas etapas" />
          <SecretOnce label="Chave para digitar no aplicativo" value={setup.secret} />
          {codeField}
          <button type="submit">Ativar</button>
        </form>
      )}
      {on && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => {
              await api.totpDisable(code);
              await api.me();
              setOn(false);
              setCode('');
              setDone('Verificação em duas etapas desativada.');
            });
          }}
        >
          {codeField}
          <button type="submit" class="danger">
            Desativar
          </button>
        </form>
      )}
      <ErrorText error={error} />
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
    </Card>
  );
}

const ACTIONS: Record<AuditAction, string> = {
  'login.succeeded': 'Login',
  'login.failed': 'Login recusado',
  logout: 'Saída',
  'totp.enabled': 'Verificação em duas etapas ativada',
  'totp.disabled': 'Verificação em duas etapas desativada',
  'credential.created': 'Credencial criada',
  'credential.rolled': 'Credencial trocada',
  'credential.narrowed': 'Credencial restringida',
  'dispute.answered': 'Contestação respondida',
  'dispute.accepted': 'Contestação aceita',
  'recipient.updated': 'Recebedor alterado',
  'credential.revoked': 'Credencial revogada',
  'allowed_ips.updated': 'IPs permitidos alterados',
  'webhook.created': 'Webhook criado',
  'webhook.updated': 'Webhook alterado',
  'webhook.deleted': 'Webhook excluído',
  'webhook.secret_rotated': 'Segredo do webhook trocado',
  'webhook.recovered': 'Entregas recuperadas',
  'webhook.disabled': 'Webhook desativado',
  'withdrawal.created': 'Saque solicitado',
  'account.updated': 'Conta alterada pelo operador',
  'settings.updated': 'Configuração alterada pelo operador',
  'user.invited': 'Usuário convidado',
  'user.joined': 'Convite aceito',
  'user.role_changed': 'Papel de usuário alterado',
  'user.removed': 'Usuário removido',
  'password.reset': 'Senha redefinida',
  'withdrawal.approved': 'Saque aprovado',
  'withdrawal.declined': 'Saque recusado',
  'approval_rule.updated': 'Regra de aprovação de saques alterada',
};
const ACTORS = { user: 'Usuário', api_key: 'Chave de API', operator: 'Operador' } as const;

function AuditLog() {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async (cursor?: string) => {
    try {
      const page = await api.audit(cursor);
      setEntries((old) => (cursor && old ? [...old, ...page.data] : page.data));
      setNext(page.nextCursor);
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => {
    void load();
  }, []);
  return (
    <Card title="Registro de atividades">
      <ErrorText error={error} />
      <Table
        label="Registro de atividades"
        head={['Quando', 'Ação', 'Quem', 'Alvo', 'IP', 'Navegador / cliente']}
        empty={entries?.length === 0 && 'Nenhuma atividade registrada.'}
      >
        {(entries ?? []).map((e) => (
          <tr key={e.id}>
            <td>{date(e.at)}</td>
            <td>{ACTIONS[e.action as AuditAction] ?? e.action}</td>
            <td>
              {ACTORS[e.actor.type]}:{' '}
              {e.actor.type === 'operator' ? operatorLabel(e.actor.label) : e.actor.label}
            </td>
            <td>{auditTarget(e.target)}</td>
            <td>{e.ip ?? '—'}</td>
            <td class="agent" title={e.userAgent ?? undefined}>
              {e.userAgent ? agentSummary(e.userAgent) : '—'}
            </td>
          </tr>
        ))}
      </Table>
      {next && (
        <button type="button" class="secondary" onClick={() => void load(next)}>
          Carregar mais
        </button>
      )}
    </Card>
  );
}

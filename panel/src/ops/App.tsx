import { useEffect, useRef, useState } from 'preact/hooks';
import { useHash } from '../ui/hash';
import { label } from '../ui/labels';
import { api, type Operator, type OperatorRole, reaches, whenSessionExpires } from './api';
import { DoneMessage } from './Decision';
import { OPERATOR_ROLE } from './labels';
import { Account } from './pages/Account';
import { Accounts } from './pages/Accounts';
import { Anticipations } from './pages/Anticipations';
import { Audit } from './pages/Audit';
import { Disputes } from './pages/Disputes';
import { FeePlans } from './pages/FeePlans';
import { AcceptInvitation, Login } from './pages/Login';
import { Operators } from './pages/Operators';
import { Reconciliation } from './pages/Reconciliation';
import { Reports } from './pages/Reports';
import { Reviews } from './pages/Reviews';
import { RiskRules } from './pages/RiskRules';
import { Withdrawals } from './pages/Withdrawals';

/** The console's pages and the least role each needs (the server refuses the rest anyway). */
/** A page gets the signed-in operator; most pages need nothing of it. */
type Page = (props: { operator: Operator }) => preact.JSX.Element;

const PAGES: { hash: string; label: string; Page: Page; need: OperatorRole }[] = [
  { hash: '#/', label: 'Contas', Page: Accounts, need: 'support' },
  { hash: '#/fila', label: 'Fila de análise', Page: Reviews, need: 'support' },
  { hash: '#/saques', label: 'Saques', Page: Withdrawals, need: 'support' },
  { hash: '#/contestacoes', label: 'Contestações', Page: Disputes, need: 'support' },
  { hash: '#/risco', label: 'Regras de risco', Page: RiskRules, need: 'risk' },
  { hash: '#/relatorios', label: 'Relatórios', Page: Reports, need: 'finance' },
  { hash: '#/tarifas', label: 'Tarifas', Page: FeePlans, need: 'finance' },
  { hash: '#/antecipacoes', label: 'Antecipações', Page: Anticipations, need: 'support' },
  { hash: '#/conciliacao', label: 'Conciliação', Page: Reconciliation, need: 'finance' },
  { hash: '#/operadores', label: 'Operadores', Page: Operators, need: 'admin' },
  { hash: '#/auditoria', label: 'Auditoria', Page: Audit, need: 'support' },
];

export function App() {
  const [operator, setOperator] = useState<Operator | null | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const hash = useHash();
  const main = useRef<HTMLElement>(null);
  const accountId = /^#\/contas\/(\d+)$/.exec(hash)?.[1];
  const invitation = /^#\/convite\/([A-Za-z0-9_-]+)$/.exec(hash)?.[1];
  const current = accountId
    ? { hash, label: 'Conta', Page: Accounts, need: 'support' as const }
    : (PAGES.find((p) => p.hash === hash) ?? PAGES[0]!);
  useEffect(() => {
    // signed out, the page says what it asks for: to sign in, or (from an invitation's link) to accept it
    const name = operator ? current.label : invitation ? 'Aceitar convite' : 'Entrar';
    document.title = `${name} · Console de operação`;
  }, [current, operator, invitation]);
  useEffect(() => {
    whenSessionExpires(() => {
      setOperator(null);
      setNotice('Sua sessão expirou. Entre novamente.');
    });
    api.me().then(setOperator, () => setOperator(null));
  }, []);
  if (invitation && !operator) {
    return (
      <AcceptInvitation
        token={invitation}
        onDone={() => {
          location.hash = '#/';
          setNotice(
            'Cadastro concluído. Entre com seu e-mail, senha e o código que o autenticador mostra agora (o código do cadastro vale para esta primeira entrada).',
          );
        }}
      />
    );
  }
  if (operator === undefined) return <p class="muted">Carregando…</p>;
  if (operator === null) return <Login notice={notice} onLogin={setOperator} />;
  return (
    <div class="shell">
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Pular para o conteúdo
      </button>
      <header>
        <strong class="brand">Console</strong>
        <nav aria-label="Principal">
          {PAGES.filter((p) => reaches(p.need)).map((p) => (
            <a
              key={p.hash}
              href={p.hash}
              aria-current={p === current || (accountId && p.hash === '#/') ? 'page' : undefined}
            >
              {p.label}
            </a>
          ))}
        </nav>
        <span class="who">{operator.email}</span>
        <span class="muted role">{label(OPERATOR_ROLE, operator.role)}</span>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            await api.logout().catch(() => undefined);
            setNotice('Você saiu.');
            setOperator(null);
          }}
        >
          Sair
        </button>
      </header>
      <main id="conteudo" ref={main} tabIndex={-1} aria-label={current.label}>
        <DoneMessage />
        {accountId ? (
          <Account key={accountId} id={Number(accountId)} />
        ) : reaches(current.need) ? (
          <current.Page key={current.hash} operator={operator} />
        ) : (
          <>
            <h1>{current.label}</h1>
            <p class="notice" role="status">
              Seu papel ({label(OPERATOR_ROLE, operator.role)}) não dá acesso a esta página.
            </p>
          </>
        )}
      </main>
    </div>
  );
}

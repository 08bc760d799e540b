import { useEffect, useRef, useState } from 'preact/hooks';
import {
  api,
  can,
  type Onboarding as OnboardingState,
  type Permission,
  type User,
  whenSessionExpires,
} from './api';
import { Approvals } from './pages/Approvals';
import { Customers } from './pages/Customers';
import { Disputes } from './pages/Disputes';
import { Integrations } from './pages/Integrations';
import { AcceptInvitation, ForgotPassword, ResetPassword } from './pages/Links';
import { Login } from './pages/Login';
import { NewCharge } from './pages/NewCharge';
import { Onboarding, SignUp } from './pages/Onboarding';
import { Overview } from './pages/Overview';
import { PaymentLinks } from './pages/PaymentLinks';
import { Receivables } from './pages/Receivables';
import { Recipients } from './pages/Recipients';
import { SaleDetail } from './pages/SaleDetail';
import { Sales } from './pages/Sales';
import { Security } from './pages/Security';
import { Statement } from './pages/Statement';
import { SubscriptionDetail } from './pages/SubscriptionDetail';
import { Subscriptions } from './pages/Subscriptions';
import { Team } from './pages/Team';
import { Webhooks } from './pages/Webhooks';
import { Withdrawals } from './pages/Withdrawals';
import { useHash } from './ui/hash';
import { label, ROLES } from './ui/labels';

/** The menu's pages and what each needs of the user's role (the server refuses the rest anyway). */
const PAGES: {
  hash: string;
  label: string;
  Page: () => preact.JSX.Element;
  need: Permission;
  menu?: false;
}[] = [
  { hash: '#/', label: 'Visão geral', Page: Overview, need: 'money.view' },
  { hash: '#/vendas', label: 'Vendas', Page: Sales, need: 'money.view' },
  { hash: '#/links', label: 'Links de pagamento', Page: PaymentLinks, need: 'money.view' },
  { hash: '#/assinaturas', label: 'Assinaturas', Page: Subscriptions, need: 'money.view' },
  { hash: '#/clientes', label: 'Clientes', Page: Customers, need: 'money.view' },
  {
    hash: '#/cobrancas/nova',
    label: 'Nova cobrança',
    Page: NewCharge,
    need: 'sales.create',
    menu: false,
  },
  { hash: '#/saques', label: 'Saques', Page: Withdrawals, need: 'money.view' },
  { hash: '#/saques/aprovacoes', label: 'Aprovações', Page: Approvals, need: 'money.view', menu: false },
  { hash: '#/recebedores', label: 'Recebedores', Page: Recipients, need: 'money.view' },
  { hash: '#/contestacoes', label: 'Contestações', Page: Disputes, need: 'money.view' },
  { hash: '#/extrato', label: 'Extrato', Page: Statement, need: 'money.view' },
  { hash: '#/recebiveis', label: 'Agenda de recebíveis', Page: Receivables, need: 'money.view' },
  { hash: '#/integracoes', label: 'Integrações', Page: Integrations, need: 'integrations' },
  { hash: '#/webhooks', label: 'Webhooks', Page: Webhooks, need: 'integrations' },
  { hash: '#/equipe', label: 'Equipe', Page: Team, need: 'team' },
  { hash: '#/seguranca', label: 'Segurança', Page: Security, need: 'self' },
  { hash: '#/cadastro', label: 'Cadastro', Page: Onboarding, need: 'self' },
];

/** Pages opened from an e-mailed link: they work without a session. */
function linkPage(hash: string): { page: 'convite' | 'nova-senha'; token: string } | 'esqueci' | null {
  if (hash === '#/esqueci-senha') return 'esqueci';
  const m = /^#\/(convite|nova-senha)\/([A-Za-z0-9_-]+)$/.exec(hash);
  return m ? { page: m[1] as 'convite' | 'nova-senha', token: m[2]! } : null;
}

/** "Modo de teste" on every page, signed in or not, while the gateway's sandbox is on. */
export function App() {
  const [testMode, setTestMode] = useState(false);
  useEffect(() => {
    api.sandbox().then(
      (s) => setTestMode(s.enabled),
      () => setTestMode(false),
    );
  }, []);
  return (
    <>
      {testMode && (
        <aside class="test-mode" aria-label="Modo de teste">
          <strong>Modo de teste.</strong> As vendas e os saques desta conta são simulados: nenhum dinheiro
          real se move.
        </aside>
      )}
      <Panel testMode={testMode} />
    </>
  );
}

type Standing = Pick<
  OnboardingState,
  'status' | 'statusReason' | 'payoutHold' | 'payoutHoldReason' | 'missing'
>;
const ACTIVE: Standing = {
  status: 'active',
  statusReason: null,
  payoutHold: false,
  payoutHoldReason: null,
  missing: [],
};
/** An operator's reason as a sentence of the banner: one final full stop, whether they typed it or not. */
const sentence = (reason: string) => `${reason.trim().replace(/[.!\s]+$/, '')}.`;

function Panel({ testMode }: { testMode: boolean }) {
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const [logoutFailed, setLogoutFailed] = useState(false);
  // an account in review or suspended is told so on every page, with the way to its documents
  const [standing, setStanding] = useState<Standing>(ACTIVE);
  const hash = useHash();
  // read again on each page opened while in review: documents sent from Cadastro change what it says
  const reviewing = standing.status === 'pending_review';
  useEffect(() => {
    if (user)
      api.onboarding().then(
        (s) => setStanding(s),
        () => setStanding(ACTIVE),
      );
  }, [user, reviewing ? hash : '']);
  const main = useRef<HTMLElement>(null);
  const saleId = /^#\/vendas\/([\w-]+)$/.exec(hash)?.[1];
  const subscriptionId = /^#\/assinaturas\/([\w-]+)$/.exec(hash)?.[1];
  // one dispute's address (its e-mail links to it) is its list's page, which opens it (pages/Disputes.tsx)
  const page = hash.startsWith('#/contestacoes/') ? '#/contestacoes' : hash;
  const current = saleId
    ? { hash, label: 'Venda', Page: Sales, need: 'money.view' as const }
    : subscriptionId
      ? { hash, label: 'Assinatura', Page: Subscriptions, need: 'money.view' as const }
      : (PAGES.find((p) => p.hash === page) ?? PAGES[0]!);
  const signedIn = Boolean(user);
  // each page is named in the tab's title, and a page opened from the menu is announced from its start
  const link = linkPage(hash);
  useEffect(() => {
    // the pages reached by an e-mail's link are named too, signed in or not
    const linked =
      link === 'esqueci'
        ? 'Esqueci a senha'
        : link?.page === 'convite'
          ? 'Aceitar convite'
          : link?.page === 'nova-senha'
            ? 'Nova senha'
            : null;
    const name = linked ?? (signedIn ? current.label : hash === '#/criar-conta' ? 'Criar conta' : 'Entrar');
    document.title = `${name} · Painel do lojista`;
  }, [current, signedIn, hash]);
  const opened = useRef(false);
  useEffect(() => {
    if (!signedIn) return;
    if (opened.current) main.current?.focus();
    opened.current = true;
  }, [current, signedIn]);
  useEffect(() => {
    whenSessionExpires(() => {
      setUser(null);
      setNotice('Sua sessão expirou. Entre novamente.');
    });
    api.me().then(setUser, () => setUser(null));
  }, []);
  if (link === 'esqueci' && !user) return <ForgotPassword />;
  if (hash === '#/criar-conta' && !user) return <SignUp onSignedIn={setUser} />;
  if (link && link !== 'esqueci') {
    return link.page === 'convite' ? (
      <AcceptInvitation key={link.token} token={link.token} onSignedIn={setUser} />
    ) : (
      <ResetPassword
        key={link.token}
        token={link.token}
        onDone={(message) => {
          setUser(null);
          setNotice(message);
        }}
      />
    );
  }
  if (user === undefined) return <p class="muted">Carregando…</p>;
  if (user === null) {
    return (
      <Login
        notice={notice}
        onLogin={(u) => {
          setNotice('');
          setUser(u);
        }}
      />
    );
  }
  return (
    <div class="shell">
      {/* a button, not a link: the hash names pages, so the focus is moved instead */}
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Pular para o conteúdo
      </button>
      <header>
        <strong class="brand">Painel</strong>
        <nav aria-label="Principal">
          {PAGES.filter((p) => p.menu !== false && can(p.need)).map((p) => (
            <a
              key={p.hash}
              href={p.hash}
              aria-current={
                p === current ||
                (saleId && p.hash === '#/vendas') ||
                (subscriptionId && p.hash === '#/assinaturas')
                  ? 'page'
                  : undefined
              }
            >
              {p.label}
            </a>
          ))}
          <a href="/docs/">API</a>
        </nav>
        <span class="who">{user.name}</span>
        <span class="muted role">{label(ROLES, user.role)}</span>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            try {
              await api.logout();
              setLogoutFailed(false);
              setNotice('Você saiu.');
              setUser(null);
            } catch {
              setLogoutFailed(true);
            }
          }}
        >
          Sair
        </button>
      </header>
      <main id="conteudo" ref={main} tabIndex={-1} aria-label={current.label}>
        {standing.status === 'pending_review' && current.hash !== '#/cadastro' && (
          <p class="notice" role="status">
            {standing.missing.length > 0
              ? `Sua conta está em análise e ainda ${standing.missing.length === 1 ? 'falta 1 documento' : `faltam ${standing.missing.length} documentos`}: cobranças e saques são liberados depois da aprovação.`
              : 'Sua conta está em análise: todos os documentos foram enviados e ela aguarda um operador. Você recebe um e-mail quando ela for aprovada.'}
            {testMode && (
              <>
                {' '}
                Enquanto isso, o modo de teste funciona:{' '}
                <a href="#/cobrancas/nova">criar uma cobrança de teste</a>.
              </>
            )}{' '}
            <a href="#/cadastro">{standing.missing.length > 0 ? 'Enviar documentos' : 'Ver cadastro'}</a>
          </p>
        )}
        {standing.status === 'suspended' && (
          <p class="error" role="status">
            Sua conta está suspensa: novas cobranças e saques estão bloqueados.{' '}
            {standing.statusReason ? `Motivo: ${sentence(standing.statusReason)} ` : ''}Fale com o suporte.
          </p>
        )}
        {standing.payoutHold && (
          <p class="notice" role="status">
            Seus saques estão retidos para análise: os novos pedidos ficam "Em análise" até a liberação.{' '}
            {standing.payoutHoldReason ? `Motivo: ${sentence(standing.payoutHoldReason)}` : ''}
          </p>
        )}
        {logoutFailed && (
          <p class="error" role="alert">
            Não foi possível sair: a sessão continua aberta. Tente de novo.
          </p>
        )}
        {can(current.need) ? (
          saleId ? (
            <SaleDetail key={saleId} id={saleId} />
          ) : subscriptionId ? (
            <SubscriptionDetail key={subscriptionId} id={subscriptionId} />
          ) : (
            <current.Page key={current.hash} />
          )
        ) : (
          <>
            <h1>{current.label}</h1>
            <p class="notice" role="status">
              Seu papel ({label(ROLES, user.role)}) não dá acesso a esta página. Peça a um proprietário ou
              administrador da conta.
            </p>
          </>
        )}
      </main>
    </div>
  );
}

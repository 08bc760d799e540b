import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type User, whenSessionExpires } from './api';
import { Integrations } from './pages/Integrations';
import { Login } from './pages/Login';
import { Overview } from './pages/Overview';
import { Sales } from './pages/Sales';
import { Security } from './pages/Security';
import { Statement } from './pages/Statement';
import { Webhooks } from './pages/Webhooks';
import { Withdrawals } from './pages/Withdrawals';

const PAGES = [
  { hash: '#/', label: 'Visão geral', Page: Overview },
  { hash: '#/vendas', label: 'Vendas', Page: Sales },
  { hash: '#/saques', label: 'Saques', Page: Withdrawals },
  { hash: '#/extrato', label: 'Extrato', Page: Statement },
  { hash: '#/integracoes', label: 'Integrações', Page: Integrations },
  { hash: '#/webhooks', label: 'Webhooks', Page: Webhooks },
  { hash: '#/seguranca', label: 'Segurança', Page: Security },
];

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

export function App() {
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const [logoutFailed, setLogoutFailed] = useState(false);
  const hash = useHash();
  const main = useRef<HTMLElement>(null);
  const current = PAGES.find((p) => p.hash === hash) ?? PAGES[0]!;
  const signedIn = Boolean(user);
  // each page is named in the tab's title, and a page opened from the menu is announced from its start
  useEffect(() => {
    document.title = signedIn ? `${current.label} · Painel do lojista` : 'Painel do lojista';
  }, [current, signedIn]);
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
          {PAGES.map((p) => (
            <a key={p.hash} href={p.hash} aria-current={p === current ? 'page' : undefined}>
              {p.label}
            </a>
          ))}
          <a href="/docs/">API</a>
        </nav>
        <span class="who">{user.name}</span>
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
        {logoutFailed && (
          <p class="error" role="alert">
            Não foi possível sair: a sessão continua aberta. Tente de novo.
          </p>
        )}
        <current.Page key={current.hash} />
      </main>
    </div>
  );
}

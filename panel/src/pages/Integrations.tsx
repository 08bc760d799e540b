import { useEffect, useRef, useState } from 'preact/hooks';
import { fromSaoPaulo, toSaoPaulo } from '../../../src/platform/time/sao-paulo';
import { ApiError, api, type Credential, can, type IssuedCredential, type KeyScope } from '../api';
import { date } from '../ui/format';
import { Card, ErrorText, SecretOnce, Table, useAttempt } from '../ui/kit';
import { errorMeaning } from '../ui/labels';

export function Integrations() {
  return (
    <>
      <h1>Integrações</h1>
      <Credentials />
      <AllowedIps />
      <LocalWebhooks />
      <p class="muted">
        Referência da API: <a href="/docs/">documentação</a>. Do primeiro pagamento de teste ao primeiro
        saque: <a href="/quickstart.md">guia de início rápido</a>.
      </p>
    </>
  );
}

/** `gateway listen` for this account's key: its events forwarded to a local address, signed as webhooks. */
function LocalWebhooks() {
  const [publicKey, setPublicKey] = useState<string | null>(null);
  useEffect(() => {
    api
      .credentials()
      .then((list) => setPublicKey(list[0]?.publicKey ?? null))
      .catch(() => setPublicKey(null));
  }, []);
  const command =
    `GATEWAY_URL=${location.origin} GATEWAY_PUBLIC_KEY=${publicKey ?? '<sua chave pública>'} ` +
    'GATEWAY_PRIVATE_KEY=<sua chave privada> npx gateway listen --forward-to http://localhost:4242/webhooks';
  return (
    <Card title="Webhooks no seu computador">
      <p>
        Sem endereço público: o comando abaixo segue os eventos da sua conta e os envia ao seu servidor local,
        assinados como webhooks (o segredo <code>whsec_…</code> que ele mostra é o mesmo a cada execução).
      </p>
      <figure class="command" aria-label="Comando gateway listen">
        <pre>
          <code>{command}</code>
        </pre>
      </figure>
      <p class="muted">
        Gere eventos de teste com <code>npx gateway trigger sale.paid</code>.
      </p>
    </Card>
  );
}

const SCOPES: Record<KeyScope, string> = {
  read: 'Somente leitura',
  charges: 'Cobranças',
  full: 'Completa (move dinheiro)',
};
/** What each scope lets a key do, said under the choice as it changes. */
const SCOPE_HELP: Record<KeyScope, string> = {
  read: 'Somente leitura: consulta saldo, vendas, saques e eventos; não cria nem move nada.',
  charges:
    'Cobranças: consulta, cria cobranças, links e sessões de checkout, tokeniza e captura cartões; não estorna nem saca.',
  full: 'Completa: tudo o que a API faz, inclusive estornos, saques e respostas a contestações.',
};
const ORDER: KeyScope[] = ['read', 'charges', 'full'];
const GRACE_CHOICES = [0, 1, 24, 72, 168];

/** The widest key this user may make: moving money needs a role that moves it (the server checks the same). */
function widestScope(): KeyScope {
  return can('withdrawals.create') && can('disputes.respond') ? 'full' : 'charges';
}

function Credentials() {
  const [list, setList] = useState<Credential[] | null>(null);
  const [issued, setIssued] = useState<IssuedCredential | null>(null);
  const [name, setName] = useState('');
  const widest = widestScope();
  // the keys this user may roll, narrow or revoke: those they could have made (the server refuses the others)
  const offered = ORDER.slice(0, ORDER.indexOf(widest) + 1);
  // keys wider than their creator's role now are listed for review to the account's owners and admins
  const reviews = can('team');
  const [scope, setScope] = useState<KeyScope>(widest);
  const [narrowing, setNarrowing] = useState<Credential | null>(null);
  const [narrowTo, setNarrowTo] = useState<KeyScope>('read');
  const [expires, setExpires] = useState('');
  const [rolling, setRolling] = useState<Credential | null>(null);
  const [grace, setGrace] = useState(24);
  // the roll form opens above the list: its first field takes the focus, and so comes into view on a phone
  const graceField = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (rolling) graceField.current?.focus();
  }, [rolling]);
  const { error, setError, act } = useAttempt();
  const refresh = () => api.credentials().then(setList).catch(setError);
  useEffect(() => {
    void refresh();
  }, []);
  return (
    <Card title="Credenciais de API">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            // a date means "through the end of that day" in São Paulo
            const expiresAt = expires ? fromSaoPaulo(`${expires}T23:59:59`).toISOString() : undefined;
            setIssued(await api.createCredential({ name, scope, ...(expiresAt ? { expiresAt } : {}) }));
            // the next key starts from the defaults, not silently read-only or expiring like this one
            setName('');
            setScope(widest);
            setExpires('');
            void refresh();
          });
        }}
      >
        <div>
          <label for="c-name">Nome</label>
          {/* a key is named for where it is used, so that the list says which one to revoke */}
          <input
            id="c-name"
            required
            maxLength={100}
            placeholder="Loja virtual"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="c-scope">Permissão</label>
          <select
            id="c-scope"
            value={scope}
            aria-describedby="c-scope-help"
            onInput={(e) => setScope(e.currentTarget.value as KeyScope)}
          >
            {offered.map((s) => (
              <option key={s} value={s}>
                {SCOPES[s]}
              </option>
            ))}
          </select>
          <p id="c-scope-help" class="muted">
            {SCOPE_HELP[scope]}
          </p>
        </div>
        <div>
          <label for="c-expires">Expira em (opcional)</label>
          <input
            id="c-expires"
            type="date"
            min={toSaoPaulo(new Date()).slice(0, 10)}
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
          />
        </div>
        <button type="submit">Gerar credencial</button>
      </form>
      {issued && (
        <>
          <p>
            Chave pública: <code>{issued.publicKey}</code>
          </p>
          <SecretOnce label="Chave privada" value={issued.privateKey} />
        </>
      )}
      {rolling && (
        <form
          class="filters"
          aria-label="Trocar credencial"
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => {
              setIssued(await api.rollCredential(rolling.id, grace));
              setRolling(null);
              void refresh();
            });
          }}
        >
          <p>
            Trocar <code>{rolling.publicKey}</code>: uma nova chave é gerada e a atual continua valendo por:
          </p>
          <div>
            <label for="c-grace">Período de transição</label>
            <select
              id="c-grace"
              ref={graceField}
              value={grace}
              onInput={(e) => setGrace(Number(e.currentTarget.value))}
            >
              {GRACE_CHOICES.map((h) => (
                <option key={h} value={h}>
                  {h === 0 ? 'nenhum (para já)' : h === 1 ? '1 hora' : `${h} horas`}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Confirmar troca</button>
          <button type="button" class="secondary" onClick={() => setRolling(null)}>
            Cancelar
          </button>
        </form>
      )}
      {narrowing && (
        <form
          class="filters"
          aria-label="Restringir credencial"
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => {
              await api.narrowCredential(narrowing.id, narrowTo);
              setNarrowing(null);
              void refresh();
            });
          }}
        >
          <p>
            Restringir <code>{narrowing.publicKey}</code>: as mesmas chaves, com menos permissão.
          </p>
          <div>
            <label for="c-narrow">Nova permissão</label>
            <select
              id="c-narrow"
              value={narrowTo}
              onInput={(e) => setNarrowTo(e.currentTarget.value as KeyScope)}
            >
              {ORDER.slice(0, ORDER.indexOf(narrowing.scope) + 1)
                .filter((s) => offered.includes(s))
                .map((s) => (
                  <option key={s} value={s}>
                    {SCOPES[s]}
                  </option>
                ))}
            </select>
          </div>
          <button type="submit">Confirmar</button>
          <button type="button" class="secondary" onClick={() => setNarrowing(null)}>
            Cancelar
          </button>
        </form>
      )}
      {reviews && (list ?? []).some((c) => c.needsReview) && (
        <p class="notice" role="status">
          Há credenciais com mais permissão do que quem as criou tem hoje (papel alterado ou usuário
          removido). Elas continuam funcionando: troque, restrinja ou revogue cada uma marcada “Revisar”.
        </p>
      )}
      <ErrorText error={error} />
      <Table
        label="Credenciais"
        head={['Nome', 'Chave pública', 'Permissão', 'Criada em', 'Expira em', 'Último uso', '']}
        empty={list?.length === 0 && 'Nenhuma credencial criada.'}
      >
        {(list ?? []).map((c) => {
          const expired = c.expiresAt !== null && Date.parse(c.expiresAt) <= Date.now();
          return (
            <tr key={c.id}>
              <td>{c.name || '—'}</td>
              <td>
                <code>{c.publicKey}</code>
              </td>
              <td>
                {SCOPES[c.scope]}
                {reviews && c.needsReview && <strong class="review"> · Revisar</strong>}
              </td>
              <td>{date(c.createdAt)}</td>
              <td>{c.expiresAt ? `${date(c.expiresAt)}${expired ? ' (expirada)' : ''}` : 'Nunca'}</td>
              <td>{c.lastUsedAt ? `${date(c.lastUsedAt)} (${c.lastUsedIp ?? '?'})` : 'Nunca usada'}</td>
              <td class="actions">
                {!expired && offered.includes(c.scope) && (
                  <button
                    type="button"
                    class="link"
                    aria-label={`Trocar a credencial ${c.publicKey}`}
                    onClick={() => setRolling(c)}
                  >
                    Trocar
                  </button>
                )}
                {!expired && c.scope !== 'read' && offered.includes(c.scope) && (
                  <button
                    type="button"
                    class="link"
                    aria-label={`Restringir a credencial ${c.publicKey}`}
                    onClick={() => {
                      setNarrowTo('read');
                      setNarrowing(c);
                    }}
                  >
                    Restringir
                  </button>
                )}
                {offered.includes(c.scope) && (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Revogar a credencial ${c.publicKey}`}
                    onClick={() => {
                      if (
                        !window.confirm(
                          'Revogar esta credencial? As integrações que a usam deixarão de funcionar.',
                        )
                      )
                        return;
                      void act(async () => {
                        await api.revokeCredential(c.id);
                        if (issued?.publicKey === c.publicKey) setIssued(null);
                        void refresh();
                      });
                    }}
                  >
                    Revogar
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </Table>
    </Card>
  );
}

function AllowedIps() {
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    api
      .allowedIps()
      .then((r) => setText(r.ips.join('\n')))
      .catch(setError);
  }, []);
  const fieldError = error instanceof ApiError ? errorMeaning(error.code, error.message) : null;
  return (
    <Card title="IPs permitidos">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setSaved(false);
          try {
            const ips = text.split(/[\s,]+/).filter(Boolean);
            const r = await api.saveAllowedIps(ips);
            setText(r.ips.join('\n'));
            setError(null);
            setSaved(true);
          } catch (err) {
            setError(err);
          }
        }}
      >
        <label for="ips">Endereços IP (um por linha)</label>
        <textarea
          id="ips"
          rows={4}
          value={text}
          aria-invalid={fieldError ? 'true' : 'false'}
          aria-describedby="ips-help ips-error"
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <p id="ips-help" class="muted">
          Com a lista vazia, as chaves de API funcionam de qualquer IP. Com IPs na lista, só desses endereços.
        </p>
        <p id="ips-error" class="error" role="alert">
          {fieldError ?? (error ? 'Não foi possível salvar.' : '')}
        </p>
        {saved && (
          <p class="ok" role="status">
            Lista salva.
          </p>
        )}
        <button type="submit">Salvar IPs</button>
      </form>
    </Card>
  );
}

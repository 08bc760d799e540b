import { useEffect, useRef, useState } from 'preact/hooks';
import { fromSaoPaulo } from '../../../src/platform/time/sao-paulo';
import { api, type Delivery, type Webhook, type WebhookStats } from '../api';
import { FormError } from '../ui/api-error';
import { date } from '../ui/format';
import { Card, ErrorText, fieldMarks, SecretOnce, Table, useAttempt } from '../ui/kit';
import { DELIVERY_STATUS, deliveryErrorText, disabledText, EVENTS, eventLabel, label } from '../ui/labels';

/** "1 pendente", "3 pendentes". */
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const PERCENT = new Intl.NumberFormat('pt-BR', { style: 'percent', maximumFractionDigits: 1 });

// the event names are the keys of EVENTS: sale and withdrawal events, then the optional cart events
/** What "*" covers: every sale and withdrawal event (docs/webhooks.md); every other event only when named. */
const STAR_EVENTS = Object.keys(EVENTS).filter((e) => e.startsWith('sale.') || e.startsWith('withdrawal.'));
const OTHER_EVENTS = Object.keys(EVENTS).filter((e) => !STAR_EVENTS.includes(e) && !e.startsWith('cart.'));
const CART_EVENTS = Object.keys(EVENTS).filter((e) => e.startsWith('cart.'));

export function Webhooks() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<Webhook | null>(null);
  const [error, setError] = useState<unknown>(null);
  // what the last change of an opened webhook did (the detail closes on it)
  const [notice, setNotice] = useState('');
  const refresh = () => api.webhooks().then(setHooks).catch(setError);
  useEffect(() => {
    void refresh();
  }, []);
  return (
    <>
      <h1>Webhooks</h1>
      <WebhookForm
        key="new"
        title="Novo webhook"
        onSave={async (url, events) => {
          const created = await api.createWebhook(url, events);
          setSecret(created.secret);
          void refresh();
        }}
      />
      {secret && <SecretOnce label="Segredo do webhook" value={secret} what="este segredo" />}
      <ErrorText error={error} />
      {notice && (
        <p class="ok" role="status">
          {notice}
        </p>
      )}
      <Table
        label="Webhooks"
        head={['URL', 'Eventos', 'Situação', 'Criado em', '']}
        empty={hooks?.length === 0 && 'Nenhum webhook cadastrado.'}
      >
        {(hooks ?? []).map((h) => (
          <tr key={h.id}>
            <td class="url">{h.webhookUrl}</td>
            <td>{h.events.includes('*') ? 'Todos (*)' : h.events.map(eventLabel).join(', ')}</td>
            <td>{h.status === 'active' ? 'Ativo' : 'Desativado'}</td>
            <td>{date(h.createdAt)}</td>
            <td>
              <button
                type="button"
                class="link"
                onClick={() => {
                  setOpen(h);
                  setNotice('');
                }}
                aria-label={`Abrir o webhook ${h.webhookUrl}`}
              >
                Abrir
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {open && (
        <WebhookDetail
          key={open.id}
          hook={open}
          onChanged={(what) => {
            setOpen(null);
            setSecret(null); // a new webhook's secret, shown once, is not left beside another change
            setNotice(what);
            void refresh();
          }}
        />
      )}
    </>
  );
}

function WebhookForm(props: {
  title: string;
  initial?: Webhook;
  onSave: (url: string, events: string[]) => Promise<void>;
}) {
  const [url, setUrl] = useState(props.initial?.webhookUrl ?? '');
  // a new webhook starts on "*" (every sale and withdrawal event, those to come included); unticked, the
  // events are chosen one by one from none
  const [events, setEvents] = useState<string[]>(props.initial?.events ?? ['*']);
  const [error, setError] = useState<unknown>(null);
  const all = events.includes('*');
  // "*" is every sale and withdrawal event and stands alone: cart events cannot be added to it
  const box = (name: string) => (
    <label key={name} class="check">
      <input
        type="checkbox"
        checked={all ? STAR_EVENTS.includes(name) : events.includes(name)}
        disabled={all}
        onChange={(e) =>
          setEvents(e.currentTarget.checked ? [...events, name] : events.filter((x) => x !== name))
        }
      />
      <span>
        {label(EVENTS, name)} <code>{name}</code>
      </span>
    </label>
  );
  const id = props.initial ? `url-${props.initial.id}` : 'url-new';
  return (
    <Card title={props.title}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          if (events.length === 0) {
            setError(new FormError('Escolha ao menos um evento, ou "Todos".'));
            return;
          }
          try {
            await props.onSave(url, events);
            // a new webhook's form starts over: a second click must not create the same webhook again
            if (!props.initial) {
              setUrl('');
              setEvents(['*']);
            }
          } catch (err) {
            setError(err);
          }
        }}
      >
        <label for={id}>URL do webhook</label>
        <input
          id={id}
          type="url"
          required
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          placeholder="https://sualoja.com/webhooks"
          {...fieldMarks(error, 'webhookUrl', id).attrs}
        />
        {fieldMarks(error, 'webhookUrl', id).message}
        <fieldset>
          <legend>Eventos</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={all}
              onChange={(e) => setEvents(e.currentTarget.checked ? ['*'] : [])}
            />
            <span>
              Todos os eventos de venda e de saque, inclusive os que vierem a existir <code>*</code>
            </span>
          </label>
          <div class="checks">{STAR_EVENTS.map(box)}</div>
        </fieldset>
        <fieldset aria-describedby={all ? `${id}-beyond` : undefined}>
          <legend>Contestações, antecipações e assinaturas (fora de "Todos")</legend>
          {all && (
            <p class="muted" id={`${id}-beyond`}>
              "Todos" não inclui estes eventos nem os de carrinho: para recebê-los, desmarque "Todos" e
              escolha os eventos um a um.
            </p>
          )}
          <div class="checks">{OTHER_EVENTS.map(box)}</div>
        </fieldset>
        <fieldset>
          <legend>Eventos de carrinho (opcionais)</legend>
          <div class="checks">{CART_EVENTS.map(box)}</div>
        </fieldset>
        <ErrorText error={error} />
        <button type="submit">{props.initial ? 'Salvar alterações' : 'Criar webhook'}</button>
      </form>
    </Card>
  );
}

/** `onChanged(what)`: the webhook was changed (saved, deleted, switched on or off); `what` says so in words. */
function WebhookDetail({ hook, onChanged }: { hook: Webhook; onChanged: (what: string) => void }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [payload, setPayload] = useState<Delivery | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [info, setInfo] = useState('');
  // the health line is read again whenever the deliveries are
  const [loads, setLoads] = useState(0);
  const load = () => {
    setLoads((n) => n + 1);
    return api.deliveries(hook.id).then(setDeliveries).catch(setError);
  };
  useEffect(() => {
    void load();
  }, [hook.id]);
  // a delivery just queued (a test event, a resend) is read again by itself a few times, until it has an outcome:
  // the list shows it delivered without the merchant pressing "Atualizar"
  const [polls, setPolls] = useState(0);
  useEffect(() => {
    if (!deliveries?.some((d) => d.status === 'PENDING') || polls >= 8) return;
    const timer = setTimeout(() => {
      setPolls((n) => n + 1);
      void load();
    }, 1500);
    return () => clearTimeout(timer);
  }, [deliveries]);
  return (
    <>
      <WebhookHealth
        hook={hook}
        loads={loads}
        onChanged={onChanged}
        onQueued={() => {
          setPolls(0);
          void load();
        }}
      />
      <WebhookForm
        title={`Editar ${hook.webhookUrl}`}
        initial={hook}
        onSave={async (url, events) => {
          await api.updateWebhook(hook.id, url, events);
          onChanged(`Alterações de ${url} salvas.`);
        }}
      />
      <Card title="Entregas">
        <div class="filters">
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setInfo('');
              void load();
            }}
          >
            Atualizar
          </button>
        </div>
        <ErrorText error={error} />
        {info && (
          <p class="ok" role="status">
            {info}
          </p>
        )}
        <Table
          label="Entregas"
          head={['Evento', 'Data', 'HTTP', 'Tentativas', 'Status', 'Erro', '']}
          empty={deliveries?.length === 0 && 'Nenhuma entrega ainda.'}
        >
          {(deliveries ?? []).map((d) => (
            <tr key={d.id}>
              <td>
                {eventLabel(d.event)} <code>{d.event}</code>
              </td>
              <td>{date(d.createdAt)}</td>
              <td>{d.statusCode ?? '—'}</td>
              <td>{d.attempts}</td>
              <td>{label(DELIVERY_STATUS, d.status)}</td>
              <td title={d.error ?? undefined}>{d.error ? deliveryErrorText(d.error) : ''}</td>
              <td class="actions">
                <button
                  type="button"
                  class="link"
                  onClick={() => setPayload(d)}
                  aria-label={`Ver o conteúdo da entrega ${d.id}`}
                >
                  Conteúdo
                </button>
                <button
                  type="button"
                  class="link"
                  aria-label={`Reenviar a entrega ${d.id}`}
                  onClick={async () => {
                    setError(null);
                    try {
                      await api.resend(d.id);
                      setInfo(
                        `Entrega ${d.id} (${eventLabel(d.event)}) reenviada: o resultado aparece na lista.`,
                      );
                      void load();
                    } catch (err) {
                      setInfo('');
                      setError(err);
                    }
                  }}
                >
                  Reenviar
                </button>
              </td>
            </tr>
          ))}
        </Table>
        {payload && (
          <div class="payload">
            <PayloadTitle payload={payload} />
            <section aria-label="Conteúdo da entrega">
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard (axe scrollable-region-focusable) */}
              <pre tabIndex={0}>{JSON.stringify(payload.payload, null, 2)}</pre>
            </section>
            <button type="button" class="secondary" onClick={() => setPayload(null)}>
              Fechar
            </button>
          </div>
        )}
      </Card>
    </>
  );
}

/** Health and operations of one webhook: disabled banner, stats, secret rotation, test event, recovery. */
function WebhookHealth(props: {
  hook: Webhook;
  loads: number;
  onChanged: (what: string) => void;
  onQueued: () => void;
}) {
  const { hook, loads } = props;
  const [stats, setStats] = useState<WebhookStats | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [overlap, setOverlap] = useState(24);
  const [since, setSince] = useState('');
  const [info, setInfo] = useState('');
  const { error, setError, act } = useAttempt(() => setInfo(''));
  useEffect(() => {
    api.webhookStats(hook.id).then(setStats).catch(setError);
  }, [hook.id, loads]);
  const rate = stats?.successRate;
  return (
    <Card title={`Saúde de ${hook.webhookUrl}`} reveal={hook.id}>
      {hook.status === 'disabled' && (
        <div class="banner" role="alert">
          <p>
            <strong>{disabledText(hook.disabledReason)}</strong> Os eventos deste período ficam registrados
            como “ignorados” e podem ser reenviados com “Recuperar entregas”.
          </p>
          <button
            type="button"
            onClick={() =>
              void act(async () => {
                await api.setWebhookStatus(hook.id, 'active');
                props.onChanged(`${hook.webhookUrl} reativado.`);
              })
            }
          >
            Reativar webhook
          </button>
        </div>
      )}
      {stats && (
        <p>
          Últimas 24 h: {plural(stats.delivered, 'entregue', 'entregues')},{' '}
          {plural(stats.failed, 'com falha', 'com falha')}, {plural(stats.pending, 'pendente', 'pendentes')} ·
          taxa de sucesso {rate === null || rate === undefined ? '—' : PERCENT.format(rate)} ·{' '}
          {stats.p50Ms === null || stats.p50Ms === undefined
            ? 'tempo de resposta: sem respostas ainda'
            : `tempo de resposta p50 ${stats.p50Ms} ms, p95 ${stats.p95Ms ?? '—'} ms`}
        </p>
      )}
      <div class="filters">
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void act(async () => {
              await api.testWebhook(hook.id);
              setInfo(
                hook.status === 'active'
                  ? 'Evento de teste enviado; ele aparece nas entregas abaixo.'
                  : 'Evento de teste registrado como não enviado: o webhook está desativado.',
              );
              props.onQueued();
            })
          }
        >
          Enviar evento de teste
        </button>
        {hook.status === 'active' && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              if (
                !window.confirm(
                  'Desativar este webhook? Os eventos deixam de ser enviados até você reativá-lo.',
                )
              )
                return;
              void act(async () => {
                await api.setWebhookStatus(hook.id, 'disabled');
                props.onChanged(`${hook.webhookUrl} desativado.`);
              });
            }}
          >
            Desativar webhook
          </button>
        )}
        <button
          type="button"
          class="danger"
          onClick={() => {
            if (!window.confirm('Excluir este webhook?')) return;
            void act(async () => {
              await api.deleteWebhook(hook.id);
              props.onChanged(`${hook.webhookUrl} excluído.`);
            });
          }}
        >
          Excluir webhook
        </button>
      </div>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const now =
            'O segredo atual deixa de assinar agora: o receptor precisa do novo segredo já. Trocar?';
          if (overlap === 0 && !window.confirm(now)) return;
          void act(async () => {
            setSecret((await api.rotateSecret(hook.id, overlap)).secret);
          });
        }}
      >
        <div>
          <label for={`overlap-${hook.id}`}>O segredo atual continua assinando por</label>
          <select
            id={`overlap-${hook.id}`}
            value={overlap}
            onInput={(e) => setOverlap(Number(e.currentTarget.value))}
          >
            {[0, 1, 24, 72, 168].map((h) => (
              <option key={h} value={h}>
                {h === 0 ? 'nada (troca imediata)' : h === 1 ? '1 hora' : `${h} horas`}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Trocar segredo</button>
      </form>
      {secret && <SecretOnce label="Novo segredo do webhook" value={secret} what="este segredo" />}
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            // typed as São Paulo time, the time the delivery log shows
            const r = await api.recover(hook.id, fromSaoPaulo(since).toISOString());
            setInfo(
              r.queued === 1
                ? '1 entrega com falha ou ignorada foi colocada na fila de novo.'
                : `${r.queued} entregas com falha ou ignoradas foram colocadas na fila de novo.`,
            );
            props.onQueued();
          });
        }}
      >
        <div>
          <label for={`since-${hook.id}`}>Recuperar entregas desde (horário de Brasília)</label>
          <input
            id={`since-${hook.id}`}
            type="datetime-local"
            required
            value={since}
            onInput={(e) => setSince(e.currentTarget.value)}
          />
        </div>
        <button type="submit" class="secondary">
          Recuperar entregas
        </button>
      </form>
      {info && (
        <p class="ok" role="status">
          {info}
        </p>
      )}
      <ErrorText error={error} />
    </Card>
  );
}

/** The opened payload's title, focused (and so brought into view) each time another is opened. */
function PayloadTitle({ payload }: { payload: Delivery }) {
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), [payload.id]);
  return (
    <h3 ref={title} tabIndex={-1}>
      Conteúdo enviado: {eventLabel(payload.event)} <code>{payload.event}</code>
    </h3>
  );
}

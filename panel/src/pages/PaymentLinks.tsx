import { useEffect, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { fromSaoPaulo, toSaoPaulo } from '../../../src/platform/time/sao-paulo';
import {
  api,
  can,
  type LinkInput,
  type PaymentLink,
  type PaymentMethod,
  type Sale,
  type SplitRuleInput,
} from '../api';
import { centsOf, date, money } from '../ui/format';
import { Card, CopyButton, ErrorText, fieldMarks, Table, useAttempt } from '../ui/kit';
import { label, METHODS, SALE_STATUS } from '../ui/labels';
import { NO_SPLIT, SplitFields, type SplitTyped, splitRules } from './SplitFields';

/** The methods a link may offer, in the form's order; only those the gateway takes now are shown. */
const LINK_METHODS: readonly PaymentMethod[] = ['PIX', 'BOLETO', 'CREDIT_CARD'];

/** "R$ 199,00", or "de R$ 10,00 a R$ 500,00" for an open amount. */
function amountText(l: PaymentLink): string {
  if (l.amountCents !== null) return money(l.amountCents);
  return `de ${money(l.minCents ?? 100)} a ${money(l.maxCents ?? 0)}`;
}

function situation(l: PaymentLink): string {
  if (!l.active) return 'Desativado';
  if (l.expiresAt && Date.parse(l.expiresAt) <= Date.now()) return 'Expirado';
  if (l.maxUses !== null && l.uses >= l.maxUses) return 'Esgotado';
  // every use left is held by a payment under way: new payers are turned away until one ends unpaid
  if (l.maxUses !== null && l.uses + l.usesInProgress >= l.maxUses)
    return 'Reservado: pagamento em andamento';
  return 'Ativo';
}

/** "1 de 3", with the payments under way beside it: they hold uses until they are paid or end. */
function usesText(l: PaymentLink): string {
  const paid = l.maxUses === null ? String(l.uses) : `${l.uses} de ${l.maxUses}`;
  if (l.usesInProgress === 0) return paid;
  return `${paid} (${l.usesInProgress} ${l.usesInProgress === 1 ? 'pagamento' : 'pagamentos'} em andamento)`;
}

/** "Links de pagamento": sell without code. Make a link, share it (address and QR code), follow its uses and sales. */
export function PaymentLinks() {
  const [links, setLinks] = useState<PaymentLink[] | null>(null);
  const [made, setMade] = useState<PaymentLink | null>(null);
  const [open, setOpen] = useState<PaymentLink | null>(null);
  const { error, setError, act } = useAttempt();
  const refresh = () =>
    api
      .paymentLinks()
      .then((page) => setLinks(page.data))
      .catch(setError);
  useEffect(() => {
    void refresh();
  }, []);
  return (
    <>
      <h1>Links de pagamento</h1>
      <p class="muted">
        Venda sem programar: crie um link, envie ao comprador (WhatsApp, e-mail, redes sociais) ou mostre o QR
        code. Ele paga numa página segura, com as formas que você escolher (Pix, boleto ou cartão).
      </p>
      {can('sales.create') && (
        <NewLink
          onAttempt={() => {
            // a new attempt's outcome replaces what the page said of the one before
            setMade(null);
            setError(null);
          }}
          onMade={(link) => {
            setMade(link);
            setOpen(link);
            void refresh();
          }}
        />
      )}
      {made && (
        <p class="ok" role="status">
          Link criado: {made.title}.
        </p>
      )}
      <ErrorText error={error} />
      <Table
        label="Links de pagamento"
        head={['Título', 'Valor', 'Formas', 'Usos', 'Situação', 'Criado em', '']}
        empty={links?.length === 0 && 'Nenhum link criado ainda.'}
      >
        {(links ?? []).map((l) => (
          <tr key={l.id}>
            <td>{l.title}</td>
            <td>{amountText(l)}</td>
            <td>{l.methods.map((m) => label(METHODS, m)).join(', ')}</td>
            <td>{usesText(l)}</td>
            <td>{situation(l)}</td>
            <td>{date(l.createdAt)}</td>
            <td class="actions">
              <button
                type="button"
                class="link"
                aria-label={`Abrir o link ${l.title}`}
                onClick={() => setOpen(l)}
              >
                Abrir
              </button>
              {can('sales.create') && (
                <button
                  type="button"
                  class="link"
                  aria-label={`${l.active ? 'Desativar' : 'Ativar'} o link ${l.title}`}
                  onClick={() =>
                    void act(async () => {
                      setMade(null);
                      const changed = await api.setPaymentLinkActive(l.id, !l.active);
                      if (open?.id === l.id) setOpen(changed);
                      await refresh();
                    })
                  }
                >
                  {l.active ? 'Desativar' : 'Ativar'}
                </button>
              )}
            </td>
          </tr>
        ))}
      </Table>
      {open && <LinkDetail key={`${open.id}:${open.active}`} link={open} />}
    </>
  );
}

/** One link: its address to copy, its QR code, and the sales made through it. */
function LinkDetail({ link }: { link: PaymentLink }) {
  const [qr, setQr] = useState<string | null>(null);
  const [sales, setSales] = useState<Sale[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    void QRCode.toDataURL(link.url, { margin: 1, width: 200 }).then((url) => live && setQr(url));
    api
      .sales({ paymentLinkId: link.id })
      .then((page) => live && setSales(page.data))
      .catch((err: unknown) => live && setError(err));
    return () => {
      live = false;
    };
  }, [link.id]);
  return (
    <Card title={`Link: ${link.title}`} reveal={link.id}>
      <p>
        Endereço para enviar ao comprador: <code data-testid="link-url">{link.url}</code>
      </p>
      <p class="actions-bar">
        <CopyButton text={link.url} label="Copiar link" />
        <a class="button secondary" href={link.url} target="_blank" rel="noopener noreferrer">
          Abrir a página
        </a>
      </p>
      {qr && <img src={qr} width={200} height={200} alt={`QR code do link ${link.title}`} />}
      <p class="muted">
        {situation(link)} ·{' '}
        {link.maxUses === null
          ? `${link.uses} ${link.uses === 1 ? 'uso pago' : 'usos pagos'}`
          : `${link.uses} de ${link.maxUses} ${link.maxUses === 1 ? 'uso pago' : 'usos pagos'}`}
        {link.usesInProgress > 0 ? ` · ${link.usesInProgress} em andamento` : ''}
        {link.expiresAt ? ` · expira em ${date(link.expiresAt)}` : ''}
      </p>
      {link.split && link.split.length > 0 && <LinkSplit split={link.split} />}
      <ErrorText error={error} />
      <Table
        label={`Vendas do link ${link.title}`}
        head={['Data', 'Comprador', 'Forma', 'Valor', 'Situação']}
        empty={sales?.length === 0 && 'Nenhuma venda por este link ainda.'}
      >
        {(sales ?? []).map((s) => (
          <tr key={s.uuid}>
            <td>
              <a href={`#/vendas/${s.uuid}`}>{date(s.date)}</a>
            </td>
            <td>{s.customer.name}</td>
            <td>{label(METHODS, s.paymentMethod)}</td>
            <td>{money(s.amount)}</td>
            <td>{label(SALE_STATUS, s.status)}</td>
          </tr>
        ))}
      </Table>
    </Card>
  );
}

/** "Dividido com": each recipient's share of every sale of the link, by name. */
function LinkSplit({ split }: { split: SplitRuleInput[] }) {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (!can('money.view')) return;
    // the split's own recipients, by id (at most 10), wherever they are in the list
    void Promise.all(
      split.map((r) =>
        api.recipient(r.recipientId).then(
          (found) => [r.recipientId, found.name] as const,
          () => null,
        ),
      ),
    ).then((found) => setNames(new Map(found.filter((f) => f !== null))));
  }, []);
  const share = (r: SplitRuleInput) =>
    `${names.get(r.recipientId) ?? 'recebedor'} ${r.amountCents !== undefined ? money(r.amountCents) : `${String(r.percent).replace('.', ',')}%`}${r.chargeFees ? ' (paga as taxas)' : ''}${r.liable ? ' (responde por estornos)' : ''}`;
  return <p data-testid="link-split">Dividido com: {split.map(share).join(' · ')}</p>;
}

/** The form of a new link: fixed or open amount, methods, installments, expiry and uses. */
function NewLink({
  onMade,
  onAttempt,
}: {
  onMade: (link: PaymentLink) => void;
  /** A new link is tried: what the page said of earlier changes no longer stands. */
  onAttempt: () => void;
}) {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [open, setOpenAmount] = useState(false);
  const [amount, setAmount] = useState('');
  const [min, setMin] = useState('');
  const [max, setMax] = useState('');
  const [methods, setMethods] = useState<PaymentMethod[]>([]);
  const [taken, setTaken] = useState<PaymentMethod[] | null>(null);
  const [installments, setInstallments] = useState('12');
  const [expires, setExpires] = useState('');
  const [uses, setUses] = useState('');
  const [successUrl, setSuccessUrl] = useState('');
  const [split, setSplit] = useState<SplitTyped>(NO_SPLIT);
  const [problem, setProblem] = useState('');
  const { error, act } = useAttempt(() => {
    setProblem('');
    onAttempt();
  });
  const toggle = (m: PaymentMethod) =>
    setMethods((now) => (now.includes(m) ? now.filter((x) => x !== m) : [...now, m]));
  useEffect(() => {
    api.paymentMethods().then(
      ({ methods: can }) => {
        const offered = LINK_METHODS.filter((m) => can.includes(m));
        setTaken(offered);
        setMethods((now) => (now.length > 0 ? now : offered.slice(0, 1)));
      },
      () => setTaken([]),
    );
  }, []);

  return (
    <Card title="Novo link">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const body: LinkInput = { title: title.trim(), methods };
            if (description.trim()) body.description = description.trim();
            if (open) {
              const lo = min ? centsOf(min) : null;
              const hi = max ? centsOf(max) : null;
              if ((min && lo === null) || (max && hi === null)) {
                setProblem('Digite os valores em reais, como 10,00.');
                return;
              }
              if (lo !== null) body.minCents = lo;
              if (hi !== null) body.maxCents = hi;
            } else {
              const cents = centsOf(amount);
              if (cents === null || cents < 1) {
                setProblem('Digite o valor em reais, como 199,90.');
                return;
              }
              body.amountCents = cents;
            }
            if (methods.length === 0) {
              setProblem('Escolha ao menos uma forma de pagamento.');
              return;
            }
            if (methods.includes('CREDIT_CARD')) body.maxInstallments = Number(installments);
            // a date means "through the end of that day" in São Paulo
            if (expires) body.expiresAt = fromSaoPaulo(`${expires}T23:59:59`).toISOString();
            if (uses) body.maxUses = Number(uses);
            if (successUrl.trim()) body.successUrl = successUrl.trim();
            const rules = splitRules(split);
            if (typeof rules === 'string') {
              setProblem(rules);
              return;
            }
            if (rules.length > 0) body.split = rules;
            onMade(await api.createPaymentLink(body));
            setTitle('');
            setDescription('');
            setAmount('');
            setMin('');
            setMax('');
            setExpires('');
            setUses('');
            setSuccessUrl('');
            setSplit(NO_SPLIT);
          });
        }}
      >
        <div>
          <label for="l-title">Título (o que o comprador vê)</label>
          <input
            id="l-title"
            required
            maxLength={120}
            value={title}
            onInput={(e) => setTitle(e.currentTarget.value)}
            {...fieldMarks(error, 'title', 'l-title').attrs}
          />
          {fieldMarks(error, 'title', 'l-title').message}
        </div>
        <div>
          <label for="l-description">Descrição (opcional)</label>
          <input
            id="l-description"
            maxLength={1000}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </div>
        <fieldset>
          <legend>Valor</legend>
          <label class="choice">
            <input type="radio" name="l-kind" checked={!open} onChange={() => setOpenAmount(false)} /> Fixo
          </label>
          <label class="choice">
            <input type="radio" name="l-kind" checked={open} onChange={() => setOpenAmount(true)} /> O
            comprador escolhe
          </label>
        </fieldset>
        {open ? (
          <>
            <div>
              <label for="l-min">Mínimo (R$, opcional)</label>
              <input
                id="l-min"
                inputMode="decimal"
                value={min}
                onInput={(e) => setMin(e.currentTarget.value)}
              />
            </div>
            <div>
              <label for="l-max">Máximo (R$, opcional)</label>
              <input
                id="l-max"
                inputMode="decimal"
                value={max}
                onInput={(e) => setMax(e.currentTarget.value)}
              />
            </div>
          </>
        ) : (
          <div>
            <label for="l-amount">Valor (R$)</label>
            <input
              id="l-amount"
              inputMode="decimal"
              required
              value={amount}
              onInput={(e) => setAmount(e.currentTarget.value)}
            />
          </div>
        )}
        <fieldset>
          <legend>Formas de pagamento</legend>
          {(taken ?? []).map((m) => (
            <label key={m} class="choice">
              <input type="checkbox" checked={methods.includes(m)} onChange={() => toggle(m)} />{' '}
              {label(METHODS, m)}
            </label>
          ))}
          {taken?.length === 0 && (
            <p class="muted">Este gateway não aceita nenhuma forma de pagamento agora.</p>
          )}
        </fieldset>
        {methods.includes('CREDIT_CARD') && (
          <div>
            <label for="l-installments">Parcelas no cartão (até)</label>
            <select
              id="l-installments"
              value={installments}
              onInput={(e) => setInstallments(e.currentTarget.value)}
            >
              {Array.from({ length: 12 }, (_, i) => String(i + 1)).map((n) => (
                <option key={n} value={n}>
                  {n === '1' ? 'Só à vista' : `${n}x sem juros`}
                </option>
              ))}
            </select>
          </div>
        )}
        <div>
          <label for="l-expires">Expira em (opcional)</label>
          <input
            id="l-expires"
            type="date"
            min={toSaoPaulo(new Date()).slice(0, 10)}
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="l-uses">Usos pagos (opcional)</label>
          <input
            id="l-uses"
            type="number"
            min={1}
            max={1000000}
            value={uses}
            onInput={(e) => setUses(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="l-success">Depois de pagar, levar o comprador a (opcional)</label>
          <input
            id="l-success"
            type="url"
            placeholder="https://sua-loja.com.br/obrigado"
            value={successUrl}
            onInput={(e) => setSuccessUrl(e.currentTarget.value)}
            {...fieldMarks(error, 'successUrl', 'l-success').attrs}
          />
          {fieldMarks(error, 'successUrl', 'l-success').message}
        </div>
        <SplitFields value={split} onChange={setSplit} />
        <button type="submit">Criar link</button>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <ErrorText error={error} />
    </Card>
  );
}

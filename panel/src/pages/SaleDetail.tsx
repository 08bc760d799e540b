import { useEffect, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { api, can, type Dispute, type Refunds, type Sale } from '../api';
import { FormError } from '../ui/api-error';
import { invalidField } from '../ui/field-errors';
import { centsOf, date, digitableLineText, money } from '../ui/format';
import { Card, CopyButton, ErrorText, Table } from '../ui/kit';
import { DISPUTE_KIND, DISPUTE_STATUS, label, METHODS, SALE_STATUS } from '../ui/labels';
import { brandName } from './CardInputs';

/** `#/vendas/<id>`: one sale on its own page (an address to share), with what may be done with it. */
/** A sale that was never paid credits nothing: its fee and net are no one's. */
const NEVER_PAID = new Set(['CANCELADO', 'RECUSADO', 'FALHA']);
/** A sale still to be paid: its net is what it will credit. */
const AWAITING = new Set(['PENDENTE', 'EM_PROCESSAMENTO']);

export function SaleDetail({ id }: { id: string }) {
  const [sale, setSale] = useState<Sale | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [sandbox, setSandbox] = useState(false);
  const [refunds, setRefunds] = useState<Refunds>([]);
  const [disputes, setDisputes] = useState<Dispute[]>([]);
  const names = useRecipientNames(sale);
  const load = () => api.sale(id).then(setSale, setError);
  // its refunds, read again whenever what was refunded changes (a refund made here, or one that ended)
  const uuid = sale?.uuid;
  const refunded = sale?.refundedAmount ?? 0;
  useEffect(() => {
    if (uuid === undefined) return;
    api.refunds(uuid).then(setRefunds, () => setRefunds([]));
  }, [uuid, refunded]);
  // its chargebacks and MEDs: what a lost one took shows in "Estornado" beside the refunds
  const status = sale?.status;
  useEffect(() => {
    if (uuid === undefined) return;
    api.disputes({ saleId: uuid, limit: '100' }).then(
      (p) => setDisputes(p.data),
      () => setDisputes([]),
    );
  }, [uuid, status, refunded]);
  useEffect(() => {
    void load();
    api.sandbox().then(
      (r) => setSandbox(r.enabled),
      () => setSandbox(false),
    );
  }, [id]);
  return (
    <>
      <p>
        <a href="#/vendas">← Vendas</a>
      </p>
      <h1>{sale ? `Venda ${sale.id}` : 'Venda'}</h1>
      <ErrorText error={error} />
      {sale && (
        <>
          <Actions sale={sale} sandbox={sandbox} onChanged={setSale} reload={() => void load()} />
          <Card title={`Venda ${sale.id}`}>
            <dl class="detail">
              <dt>UUID</dt>
              <dd>{sale.uuid}</dd>
              <dt>Status</dt>
              <dd>
                {label(SALE_STATUS, sale.status)}
                {sale.status === 'PAGO' && sale.refundedAmount > 0 && ' · estorno parcial'}
              </dd>
              <dt>Valor</dt>
              <dd>{money(sale.amount)}</dd>
              {sale.paidAmount !== null && sale.paidAmount !== sale.amount && (
                <>
                  <dt>Valor pago</dt>
                  <dd>
                    {money(sale.paidAmount)} (
                    {sale.paidAmount < sale.amount ? 'com o desconto' : 'com multa e juros'}; a taxa e o
                    líquido são calculados sobre ele)
                  </dd>
                </>
              )}
              {NEVER_PAID.has(sale.status) ? (
                <>
                  <dt>Líquido</dt>
                  <dd>Nenhum: a venda não foi paga</dd>
                </>
              ) : (
                <>
                  <dt>Taxa</dt>
                  <dd>{money(sale.systemFee)}</dd>
                  <dt>
                    {AWAITING.has(sale.status) ? 'Líquido quando paga' : 'Líquido'}
                    {sale.split ? ' (todas as partes)' : ''}
                  </dt>
                  <dd>{money(sale.netAmount)}</dd>
                </>
              )}
              {sale.refundedAmount > 0 && (
                <>
                  <dt>Estornado</dt>
                  <dd>
                    {money(sale.refundedAmount)}
                    <LostInDisputes refunds={refunds} disputes={disputes} />
                  </dd>
                  <NetAfterRefunds sale={sale} refunds={refunds} />
                </>
              )}
              {sale.reserveAmount > 0 && (
                <>
                  <dt>Reserva</dt>
                  <dd>{money(sale.reserveAmount)}</dd>
                </>
              )}
              <dt>Forma de pagamento</dt>
              <dd>
                {label(METHODS, sale.paymentMethod)}
                {sale.cardBrand && ` · ${brandName(sale.cardBrand)} final ${sale.cardLastFour ?? ''}`}
                {(sale.installments ?? 0) > 1 && ` · ${sale.installments}x`}
              </dd>
              {sale.refusalReason && (
                <>
                  <dt>Motivo da recusa</dt>
                  <dd>
                    {sale.refusalReason.message} (código {sale.refusalReason.code})
                  </dd>
                </>
              )}
              <dt>Cliente</dt>
              <dd>
                {sale.customer?.name} · {sale.customer?.email} · {sale.customer?.document}
              </dd>
              <dt>Itens</dt>
              <dd>
                <ul class="plain">
                  {sale.items.map((item) => (
                    <li key={item.id}>
                      {item.quantity} × {item.title} ({money(item.unitPrice)})
                    </li>
                  ))}
                </ul>
              </dd>
              <dt>Criada em</dt>
              <dd>{date(sale.date)}</dd>
              {sale.completedAt && (
                <>
                  <dt>Paga em</dt>
                  <dd>{date(sale.completedAt)}</dd>
                </>
              )}
              <dt>ID no processador</dt>
              <dd>{sale.externalTransactionId}</dd>
              {sale.idRec && (
                <>
                  <dt>Recorrência</dt>
                  <dd>
                    {sale.idRec}
                    {sale.contrato && ` · contrato ${sale.contrato}`}
                  </dd>
                </>
              )}
              {/* the code only while it can be paid: a paid or closed charge's code is no use to anyone */}
              {sale.pixKey && sale.paymentMethod === 'PIX' && sale.status === 'PENDENTE' && (
                <>
                  <dt>PIX copia e cola</dt>
                  <dd>
                    <PixCode code={sale.pixKey} />
                  </dd>
                </>
              )}
              {sale.boletoCode && sale.status === 'PENDENTE' && (
                <>
                  <dt>Linha digitável</dt>
                  <dd>
                    <code>{digitableLineText(sale.boletoCode)}</code>
                    <CopyButton text={sale.boletoCode} label="Copiar linha digitável" />
                  </dd>
                </>
              )}
              {sale.boleto && (
                <>
                  <dt>Boleto</dt>
                  <dd>
                    Vencimento {sale.boleto.dueDate.split('-').reverse().join('/')} · nosso número{' '}
                    {sale.boleto.nossoNumero} ·{' '}
                    <a href={sale.boleto.pdfUrl} target="_blank" rel="noopener noreferrer">
                      Abrir o PDF
                    </a>
                  </dd>
                </>
              )}
            </dl>
          </Card>
          {sale.split && sale.split.length > 0 && <SplitList split={sale.split} names={names} />}
          {refunds.length > 0 && <RefundList refunds={refunds} names={names} disputes={disputes} />}
          {disputes.length > 0 && <DisputeList disputes={disputes} />}
        </>
      )}
    </>
  );
}

const REFUND_STATUS: Record<string, string> = {
  pending: 'Em processamento',
  succeeded: 'Concluído',
  failed: 'Não realizado',
};

/** The names of a split sale's recipients, by id (read once per sale; an unread one stays out). */
function useRecipientNames(sale: Sale | null): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  const ids = (sale?.split ?? []).flatMap((p) => (p.recipientId ? [p.recipientId] : []));
  const key = ids.join(',');
  useEffect(() => {
    if (ids.length === 0) return;
    let current = true;
    void Promise.all(
      ids.map((id) =>
        api.recipient(id).then(
          (r) => [id, r.name] as const,
          () => null,
        ),
      ),
    ).then((found) => {
      if (current) setNames(new Map(found.filter((f) => f !== null)));
    });
    return () => {
      current = false;
    };
  }, [key]);
  return names;
}

/** Who a party of a split is, in words: the account itself or a recipient, by name when it was read. */
const partyName = (names: Map<string, string>, recipientId: string | null) =>
  recipientId === null ? 'Sua conta' : (names.get(recipientId) ?? `Recebedor ${recipientId.slice(0, 8)}`);

/** A split sale's parties: what each rule asked, who pays the fees and answers for refunds, and each net share. */
function SplitList({ split, names }: { split: NonNullable<Sale['split']>; names: Map<string, string> }) {
  return (
    <Card title="Divisão (split)">
      <Table
        label="Divisão desta venda"
        head={['Parte', 'Regra', 'Paga as taxas', 'Responde por estornos', 'Líquido']}
      >
        {split.map((p) => (
          <tr key={p.recipientId ?? 'platform'}>
            <td class="text">{partyName(names, p.recipientId)}</td>
            <td>
              {p.amountCents !== undefined
                ? money(p.amountCents)
                : p.percent !== undefined
                  ? `${String(p.percent).replace('.', ',')} %`
                  : 'o restante'}
            </td>
            <td>{p.chargeFees ? 'Sim' : 'Não'}</td>
            <td>{p.liable ? 'Sim' : 'Não'}</td>
            <td class="money">{money(p.netCents)}</td>
          </tr>
        ))}
      </Table>
    </Card>
  );
}

/**
 * The sale's refunds, and who paid each: the platform or a recipient, from the sale's installments or the balance.
 * One the merchant did not ask for says why: a dispute lost (its reason names the dispute), or made at the processor.
 */
function RefundList({
  refunds,
  names,
  disputes,
}: {
  refunds: Refunds;
  names: Map<string, string>;
  disputes: Dispute[];
}) {
  // a dispute's refund names it: accepted by the merchant, or lost
  const why = (r: Refunds[number]) => {
    if (r.reason === null) return '';
    const dispute = disputes.find((d) => r.reason?.includes(d.id));
    if (!dispute) return ' (feito no processador)';
    return dispute.status === 'accepted' ? ' (contestação aceita)' : ' (contestação perdida)';
  };
  return (
    <Card title="Estornos">
      <Table label="Estornos desta venda" head={['Data', 'Valor', 'Status', 'Quem pagou']}>
        {refunds.map((r) => (
          <tr key={r.id}>
            <td>{date(r.createdAt)}</td>
            <td>{money(r.amountCents)}</td>
            <td>
              {label(REFUND_STATUS, r.status)}
              {why(r)}
            </td>
            <td>
              <ul class="plain">
                {r.allocation.map((a) => (
                  <li key={a.party}>
                    {partyName(names, a.party === 'platform' ? null : a.party)}: {money(a.amountCents)}
                    {a.fromReceivableCents > 0 &&
                      ` (${money(a.fromReceivableCents)} das parcelas a receber desta venda${a.fromAvailableCents > 0 ? `, ${money(a.fromAvailableCents)} do saldo` : ''})`}
                  </li>
                ))}
                {r.feeReturnedCents > 0 && <li>Tarifa devolvida: {money(r.feeReturnedCents)}</li>}
              </ul>
            </td>
          </tr>
        ))}
      </Table>
    </Card>
  );
}

/**
 * The sale's chargebacks and MEDs: a lost one's amount went back to the payer, counts in "Estornado" and is listed
 * among the refunds (who paid it); one still open holds its amount.
 */
function DisputeList({ disputes }: { disputes: Dispute[] }) {
  return (
    <Card title="Contestações">
      <Table
        label="Contestações desta venda"
        head={['Aberta em', 'Tipo', 'Valor', 'Situação', 'Encerrada em']}
      >
        {disputes.map((d) => (
          <tr key={d.id}>
            <td>
              <a href={`#/contestacoes/${d.id}`}>{date(d.createdAt)}</a>
            </td>
            <td class="text">{label(DISPUTE_KIND, d.kind)}</td>
            <td class="money">{money(d.amountCents)}</td>
            <td class="text">{label(DISPUTE_STATUS, d.status)}</td>
            <td>{d.closedAt ? date(d.closedAt) : '—'}</td>
          </tr>
        ))}
      </Table>
      <p class="muted">Cada data abre a contestação: responder, aceitar ou ver as provas.</p>
    </Card>
  );
}

/**
 * The part of "Estornado" that lost (or accepted) disputes gave back to the payer: each is recorded as a refund
 * made whose reason names its dispute.
 */
function LostInDisputes(props: { refunds: Refunds; disputes: Dispute[] }) {
  const lost = props.disputes.filter((d) => d.status === 'lost' || d.status === 'accepted');
  const made = props.refunds.filter(
    (r) => r.status === 'succeeded' && lost.some((d) => r.reason?.includes(d.id)),
  );
  const byDisputes = made.reduce((sum, r) => sum + r.amountCents, 0);
  if (byDisputes <= 0) return null;
  const ended = new Set(lost.filter((d) => made.some((r) => r.reason?.includes(d.id))).map((d) => d.status));
  const how = ended.size > 1 ? 'perdida ou aceita' : ended.has('accepted') ? 'aceita' : 'perdida';
  return (
    <>
      {' '}
      ({money(byDisputes)} por contestação {how})
    </>
  );
}

/**
 * What the sale still credits once its refunds (and disputes lost) took their part: "Líquido" is the sale's net
 * when paid, and each refund takes its amount less the fee it gave back. Shown once the refunds read add up to
 * what the sale says was refunded (not while they are being read again).
 */
function NetAfterRefunds(props: { sale: Sale; refunds: Refunds }) {
  const made = props.refunds.filter((r) => r.status === 'succeeded');
  if (made.reduce((sum, r) => sum + r.amountCents, 0) !== props.sale.refundedAmount) return null;
  const taken = made.reduce((sum, r) => sum + r.amountCents - r.feeReturnedCents, 0);
  return (
    <>
      <dt>Líquido após estornos{props.sale.split ? ' (todas as partes)' : ''}</dt>
      <dd>{money(props.sale.netAmount - taken)}</dd>
    </>
  );
}

/** What of a sale the payer may still get back. */
const leftOf = (sale: Sale) => (sale.paidAmount ?? sale.amount) - sale.refundedAmount;

/**
 * Refund a paid sale in full or in part (roles that may move money), or pay a pending one in the sandbox. A
 * refund is sent under a key made when the form opens: a second click, or a retry after a lost answer, is the
 * same refund.
 */
function Actions(props: { sale: Sale; sandbox: boolean; onChanged: (s: Sale) => void; reload: () => void }) {
  const { sale } = props;
  const [form, setForm] = useState<{ amount: string; key: string } | null>(null);
  // the refunded amount a refund asked for will reach: the sale is read again until it shows
  const [awaiting, setAwaiting] = useState<number | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const pending = awaiting !== null && sale.refundedAmount < awaiting && sale.status === 'PAGO';
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(props.reload, 2000);
    return () => clearTimeout(timer);
  }, [pending, sale]);
  const refundable = can('sales.create') && sale.status === 'PAGO' && leftOf(sale) > 0;
  const simulable = props.sandbox && can('integrations') && sale.status === 'PENDENTE';
  const cancellable =
    can('sales.create') &&
    sale.status === 'PENDENTE' &&
    (sale.paymentMethod === 'PIX' || sale.paymentMethod === 'BOLETO');
  const cents = form ? centsOf(form.amount) : null;
  const run = async (action: () => Promise<Sale>, done: string) => {
    setBusy(true);
    setError(null);
    try {
      props.onChanged(await action());
      setNotice(done);
      setForm(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="actions-bar">
      {pending && (
        <p class="notice" role="status">
          Estorno em andamento: o valor fica bloqueado até o processador confirmar a devolução ao comprador.
        </p>
      )}
      {notice && !pending && (
        <p class="ok" role="status">
          {notice}
        </p>
      )}
      <ErrorText error={error} />
      {refundable &&
        (form ? (
          <form
            class="actions"
            onSubmit={(e) => {
              e.preventDefault();
              if (cents === null) {
                setError(new FormError('Informe um valor em reais, por exemplo 15,00.'));
                return;
              }
              if (cents <= 0) {
                setError(new FormError('O valor a estornar deve ser maior que zero.'));
                return;
              }
              if (cents > leftOf(sale)) {
                setError(new FormError(`O máximo a estornar é ${money(leftOf(sale))}.`));
                return;
              }
              const reach = sale.refundedAmount + cents;
              void run(
                async () => {
                  const refunded = await api.refund(sale.uuid, cents, form.key);
                  // only a refund the gateway took is awaited: a refused one (422) is not under way
                  setAwaiting(reach);
                  return refunded;
                },
                cents === leftOf(sale)
                  ? 'Venda estornada: o valor foi devolvido ao comprador.'
                  : `Estorno de ${money(cents)} feito: o valor foi devolvido ao comprador.`,
              );
            }}
          >
            <label for="refund-amount">Valor a estornar (R$)</label>
            <input
              id="refund-amount"
              inputMode="decimal"
              required
              value={form.amount}
              // what the form refused, or the server's refusal of the amount, is this field's
              aria-invalid={error instanceof FormError || invalidField(error) !== null || undefined}
              aria-describedby="refund-left"
              onInput={(e) => {
                // another amount is another refund: a new key
                setForm({ amount: e.currentTarget.value, key: crypto.randomUUID() });
                setError(null);
              }}
            />
            <span id="refund-left" class="hint">
              Até {money(leftOf(sale))}
            </span>
            <button type="submit" class="danger" disabled={busy}>
              {cents !== null && cents > 0 && cents <= leftOf(sale)
                ? `Confirmar estorno de ${money(cents)}`
                : 'Confirmar estorno'}
            </button>
            <button type="button" class="secondary" onClick={() => setForm(null)}>
              Cancelar
            </button>
          </form>
        ) : (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setNotice('');
              setForm({
                amount: (leftOf(sale) / 100).toFixed(2).replace('.', ','),
                key: crypto.randomUUID(),
              });
            }}
          >
            Estornar
          </button>
        ))}
      {cancellable && (
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => {
            if (!window.confirm('Cancelar esta cobrança? O comprador não poderá mais pagá-la.')) return;
            void run(() => api.cancelSale(sale.uuid), 'Cobrança cancelada: ela não pode mais ser paga.');
          }}
        >
          Cancelar cobrança
        </button>
      )}
      {simulable && (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(() => api.simulatePayment(sale.uuid), 'Pagamento simulado: a venda está paga.')
          }
        >
          Simular pagamento
        </button>
      )}
    </div>
  );
}

/**
 * A PIX charge's copy-and-paste code, shown while it can still be paid, with its QR code and a copy button, so
 * the merchant can hand it to the buyer from here.
 */
function PixCode({ code }: { code: string }) {
  const [qr, setQr] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    setQr(null);
    setCopied(false);
    let live = true;
    void QRCode.toDataURL(code, { margin: 1, width: 180 }).then((url) => live && setQr(url));
    return () => {
      live = false;
    };
  }, [code]);
  return (
    <>
      <code>{code}</code>
      <div class="pix-code">
        {qr && <img src={qr} width={180} height={180} alt="QR code do PIX desta venda" />}
        <button
          type="button"
          class="secondary"
          onClick={() => void navigator.clipboard?.writeText(code).then(() => setCopied(true))}
        >
          {copied ? 'Copiado' : 'Copiar código'}
        </button>
      </div>
    </>
  );
}

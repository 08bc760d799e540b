import { useEffect, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { api, can, type Sale } from '../api';
import { date, digitableLineText, money } from '../ui/format';
import { Card, ErrorText } from '../ui/kit';
import { label, METHODS, SALE_STATUS } from '../ui/labels';

/** `#/vendas/<id>`: one sale on its own page (an address to share), with what may be done with it. */
export function SaleDetail({ id }: { id: string }) {
  const [sale, setSale] = useState<Sale | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [sandbox, setSandbox] = useState(false);
  const load = () => api.sale(id).then(setSale, setError);
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
              <dd>{label(SALE_STATUS, sale.status)}</dd>
              <dt>Valor</dt>
              <dd>{money(sale.amount)}</dd>
              <dt>Taxa</dt>
              <dd>{money(sale.systemFee)}</dd>
              <dt>Líquido</dt>
              <dd>{money(sale.netAmount)}</dd>
              {sale.reserveAmount > 0 && (
                <>
                  <dt>Reserva</dt>
                  <dd>{money(sale.reserveAmount)}</dd>
                </>
              )}
              <dt>Forma de pagamento</dt>
              <dd>
                {label(METHODS, sale.paymentMethod)}
                {sale.cardBrand && ` · ${sale.cardBrand} final ${sale.cardLastFour ?? ''}`}
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
              {sale.pixKey && sale.paymentMethod === 'PIX' && (
                <>
                  <dt>PIX copia e cola</dt>
                  <dd>
                    <PixCode code={sale.pixKey} payable={sale.status === 'PENDENTE'} />
                  </dd>
                </>
              )}
              {sale.boletoCode && (
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
        </>
      )}
    </>
  );
}

/** Refund a paid PIX sale (roles that may move money), or pay a pending one in the sandbox. */
function Actions(props: { sale: Sale; sandbox: boolean; onChanged: (s: Sale) => void; reload: () => void }) {
  const { sale } = props;
  const [confirming, setConfirming] = useState(false);
  const [refunding, setRefunding] = useState(false);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // a refund asked for: the sale is read again until the processor's answer shows (ESTORNADO)
  useEffect(() => {
    if (!refunding || sale.status !== 'PAGO') return;
    const timer = setTimeout(props.reload, 2000);
    return () => clearTimeout(timer);
  }, [refunding, sale]);
  const refundable = can('withdrawals.create') && sale.status === 'PAGO' && sale.paymentMethod === 'PIX';
  const simulable = props.sandbox && can('integrations') && sale.status === 'PENDENTE';
  const run = async (action: () => Promise<Sale>, done: string) => {
    setBusy(true);
    setError(null);
    try {
      props.onChanged(await action());
      setNotice(done);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return (
    <div class="actions-bar">
      {refunding && sale.status === 'PAGO' && (
        <p class="notice" role="status">
          Estorno em andamento: o valor fica bloqueado até o processador confirmar a devolução ao comprador.
        </p>
      )}
      {notice && !(refunding && sale.status === 'PAGO') && (
        <p class="ok" role="status">
          {notice}
        </p>
      )}
      <ErrorText error={error} />
      {refundable &&
        (confirming ? (
          <span class="actions">
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => {
                setRefunding(true);
                void run(() => api.refund(sale.uuid), 'Venda estornada: o valor foi devolvido ao comprador.');
              }}
            >
              Confirmar estorno de {money(sale.amount)}
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Cancelar
            </button>
          </span>
        ) : (
          <button type="button" class="secondary" onClick={() => setConfirming(true)}>
            Estornar venda
          </button>
        ))}
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

/** Copies a code to the clipboard, saying so once done. */
function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="secondary"
      onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}
    >
      {copied ? 'Copiado' : label}
    </button>
  );
}

/**
 * A PIX sale's copy-and-paste code; while the charge can still be paid, with its QR code and a copy button, so
 * the merchant can hand it to the buyer from here.
 */
function PixCode({ code, payable }: { code: string; payable: boolean }) {
  const [qr, setQr] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    setQr(null);
    setCopied(false);
    if (!payable) return;
    let live = true;
    void QRCode.toDataURL(code, { margin: 1, width: 180 }).then((url) => live && setQr(url));
    return () => {
      live = false;
    };
  }, [code, payable]);
  return (
    <>
      <code>{code}</code>
      {payable && (
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
      )}
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { api, type Sale } from '../api';
import { date, money } from '../ui/format';
import { Card, DetailsButton, ErrorText, Options, Table } from '../ui/kit';
import { label, METHODS, SALE_STATUS } from '../ui/labels';

type Filters = { status: string; paymentMethod: string; from: string; to: string; q: string };
const EMPTY: Filters = { status: '', paymentMethod: '', from: '', to: '', q: '' };

export function Sales() {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [rows, setRows] = useState<Sale[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [selected, setSelected] = useState<Sale | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = (f: Filters, after?: string) =>
    api
      .sales({ ...f, cursor: after })
      .then((page) => {
        setRows((prev) => (after ? [...prev, ...page.data] : page.data));
        setCursor(page.nextCursor);
        setLoaded(true);
        setError(null);
      })
      .catch(setError);
  useEffect(() => {
    void load(applied);
  }, [applied]);

  const field = (name: keyof Filters) => ({
    id: `f-${name}`,
    value: filters[name],
    onInput: (e: { currentTarget: { value: string } }) =>
      setFilters({ ...filters, [name]: e.currentTarget.value }),
  });
  return (
    <>
      <h1>Vendas</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(filters);
          setSelected(null); // a sale of the last list may not be in the new one
        }}
      >
        <div>
          <label for="f-q">Buscar</label>
          <input {...field('q')} type="search" placeholder="Nome, e-mail, CPF/CNPJ ou id" />
        </div>
        <div>
          <label for="f-status">Status</label>
          <select {...field('status')}>
            <Options labels={SALE_STATUS} all="Todos" />
          </select>
        </div>
        <div>
          <label for="f-paymentMethod">Forma de pagamento</label>
          <select {...field('paymentMethod')}>
            <Options labels={METHODS} all="Todas" />
          </select>
        </div>
        <div>
          <label for="f-from">De</label>
          <input {...field('from')} type="date" />
        </div>
        <div>
          <label for="f-to">Até</label>
          <input {...field('to')} type="date" />
        </div>
        <button type="submit">Filtrar</button>
        <a class="button secondary" href={api.exportUrl('sales', applied)} download>
          Exportar CSV
        </a>
      </form>
      <ErrorText error={error} />
      <Table
        label="Vendas"
        head={['Data', 'Cliente', 'Forma', 'Valor', 'Status', '']}
        empty={loaded && rows.length === 0 && !error && 'Nenhuma venda encontrada.'}
      >
        {rows.map((s) => (
          <tr key={s.id}>
            <td>{date(s.date)}</td>
            <td class="text">{s.customer?.name}</td>
            <td>{label(METHODS, s.paymentMethod)}</td>
            <td class="money">{money(s.amount)}</td>
            <td>{label(SALE_STATUS, s.status)}</td>
            <td>
              <DetailsButton label={`Detalhes da venda ${s.id}`} onClick={() => setSelected(s)} />
            </td>
          </tr>
        ))}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(applied, cursor)}>
          Carregar mais
        </button>
      )}
      {selected && (
        <Card title={`Venda ${selected.id}`} reveal={selected.id}>
          <dl class="detail">
            <dt>UUID</dt>
            <dd>{selected.uuid}</dd>
            <dt>Status</dt>
            <dd>{label(SALE_STATUS, selected.status)}</dd>
            <dt>Valor</dt>
            <dd>{money(selected.amount)}</dd>
            <dt>Taxa</dt>
            <dd>{money(selected.systemFee)}</dd>
            <dt>Líquido</dt>
            <dd>{money(selected.netAmount)}</dd>
            {selected.reserveAmount > 0 && (
              <>
                <dt>Reserva</dt>
                <dd>{money(selected.reserveAmount)}</dd>
              </>
            )}
            <dt>Forma de pagamento</dt>
            <dd>
              {label(METHODS, selected.paymentMethod)}
              {selected.cardBrand && ` · ${selected.cardBrand} final ${selected.cardLastFour ?? ''}`}
              {(selected.installments ?? 0) > 1 && ` · ${selected.installments}x`}
            </dd>
            <dt>Cliente</dt>
            <dd>
              {selected.customer?.name} · {selected.customer?.email} · {selected.customer?.document}
            </dd>
            <dt>Itens</dt>
            <dd>
              <ul class="plain">
                {selected.items.map((item) => (
                  <li key={item.id}>
                    {item.quantity} × {item.title} ({money(item.unitPrice)})
                  </li>
                ))}
              </ul>
            </dd>
            <dt>Criada em</dt>
            <dd>{date(selected.date)}</dd>
            {selected.completedAt && (
              <>
                <dt>Paga em</dt>
                <dd>{date(selected.completedAt)}</dd>
              </>
            )}
            <dt>ID no processador</dt>
            <dd>{selected.externalTransactionId}</dd>
            {selected.idRec && (
              <>
                <dt>Recorrência</dt>
                <dd>
                  {selected.idRec}
                  {selected.contrato && ` · contrato ${selected.contrato}`}
                </dd>
              </>
            )}
            {selected.pixKey && selected.paymentMethod === 'PIX' && (
              <>
                <dt>PIX copia e cola</dt>
                <dd>
                  <PixCode code={selected.pixKey} payable={selected.status === 'PENDENTE'} />
                </dd>
              </>
            )}
            {selected.boletoCode && (
              <>
                <dt>Linha digitável</dt>
                <dd>
                  <code>{selected.boletoCode}</code>
                </dd>
              </>
            )}
          </dl>
          <button type="button" class="secondary" onClick={() => setSelected(null)}>
            Fechar
          </button>
        </Card>
      )}
    </>
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

import { useEffect, useState } from 'preact/hooks';
import { api, type Recipient, type Sale, type Withdrawal } from '../api';
import { date, day, money, moneyText } from '../ui/format';
import { Card, DetailsButton, ErrorText, Table } from '../ui/kit';
import {
  errorMeaning,
  label,
  METHODS,
  PIX_KEY_TYPES,
  SALE_STATUS,
  TRANSFER_INTERVALS,
  WITHDRAWAL_STATUS,
} from '../ui/labels';

/**
 * Recebedores (split payments): the account's recipients with their balances; a recipient's details show the
 * sales whose split includes it (with its share) and its withdrawals.
 */
export function Recipients() {
  const [rows, setRows] = useState<Recipient[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<Recipient | null>(null);
  const load = (after?: string) =>
    api
      .recipients(after)
      .then((p) => {
        setRows((prev) => (after ? [...prev, ...p.data] : p.data));
        setCursor(p.nextCursor);
        setLoaded(true);
      })
      .catch(setError);
  useEffect(() => {
    void load();
  }, []);
  return (
    <>
      <h1>Recebedores</h1>
      <p class="muted">
        Quem recebe parte das suas vendas (split). Cada recebedor tem saldo próprio; os saques dele vão para a
        chave PIX dele.
      </p>
      <ErrorText error={error} />
      <Table
        label="Recebedores"
        head={['Nome', 'Documento', 'Repasse', 'Disponível', 'Bloqueado', 'A receber', '']}
        empty={loaded && rows.length === 0 && !error && 'Nenhum recebedor cadastrado.'}
      >
        {rows.map((r) => (
          <tr key={r.id}>
            <td class="text">{r.name}</td>
            <td>{r.document}</td>
            <td>{label(TRANSFER_INTERVALS, r.transferInterval)}</td>
            <td class="money">{money(r.balance.available)}</td>
            <td class="money">{money(r.balance.blocked)}</td>
            <td class="money">{money(r.balance.receivable)}</td>
            <td>
              <DetailsButton label={`Detalhes do recebedor ${r.name}`} onClick={() => setSelected(r)} />
            </td>
          </tr>
        ))}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Carregar mais
        </button>
      )}
      {selected && <RecipientDetail recipient={selected} onClose={() => setSelected(null)} />}
    </>
  );
}

function RecipientDetail({ recipient, onClose }: { recipient: Recipient; onClose: () => void }) {
  const [sales, setSales] = useState<Sale[] | null>(null);
  const [withdrawals, setWithdrawals] = useState<Withdrawal[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setSales(null);
    setWithdrawals(null);
    setError(null);
    api
      .sales({ recipientId: recipient.id, limit: '20' })
      .then((p) => setSales(p.data))
      .catch(setError);
    api
      .withdrawals({ recipientId: recipient.id, limit: '20' })
      .then((p) => setWithdrawals(p.data))
      .catch(setError);
  }, [recipient.id]);
  const share = (s: Sale) => s.split?.find((p) => p.recipientId === recipient.id)?.netCents ?? null;
  return (
    <Card title={recipient.name} reveal={recipient.id}>
      <dl class="detail">
        <dt>Documento</dt>
        <dd>{recipient.document}</dd>
        <dt>E-mail</dt>
        <dd>{recipient.email}</dd>
        <dt>Chave PIX</dt>
        <dd>
          {recipient.pixKey} ({label(PIX_KEY_TYPES, recipient.pixKeyType)})
        </dd>
        <dt>Repasse</dt>
        <dd>{label(TRANSFER_INTERVALS, recipient.transferInterval)}</dd>
        {recipient.lastAutomaticPayout && (
          <>
            <dt>Último repasse automático</dt>
            <dd>{lastPayoutText(recipient.lastAutomaticPayout)}</dd>
          </>
        )}
        <dt>Saldo total</dt>
        <dd>{money(recipient.balance.total)}</dd>
        <dt>Cadastrado em</dt>
        <dd>{date(recipient.createdAt)}</dd>
      </dl>
      <ErrorText error={error} />
      <h3>Vendas</h3>
      <Table
        label={`Vendas de ${recipient.name}`}
        head={['Data', 'Forma', 'Valor da venda', 'Parte do recebedor', 'Status', '']}
        empty={sales !== null && sales.length === 0 && 'Nenhuma venda com este recebedor.'}
      >
        {(sales ?? []).map((s) => {
          const cents = share(s);
          return (
            <tr key={s.id}>
              <td>{date(s.date)}</td>
              <td>{label(METHODS, s.paymentMethod)}</td>
              <td class="money">{money(s.amount)}</td>
              <td class="money">{cents === null ? '—' : money(cents)}</td>
              <td>{label(SALE_STATUS, s.status)}</td>
              <td>
                <a
                  class="button secondary"
                  href={`#/vendas/${s.uuid}`}
                  aria-label={`Detalhes da venda ${s.id}`}
                >
                  Detalhes
                </a>
              </td>
            </tr>
          );
        })}
      </Table>
      <h3>Saques</h3>
      <Table
        label={`Saques de ${recipient.name}`}
        head={['Data', 'Chave PIX', 'Valor', 'Taxas', 'Status']}
        empty={withdrawals !== null && withdrawals.length === 0 && 'Nenhum saque deste recebedor.'}
      >
        {(withdrawals ?? []).map((w) => (
          <tr key={w.id}>
            <td>{date(w.createdAt)}</td>
            <td class="text">{w.pixKey}</td>
            <td class="money">{moneyText(w.amount)}</td>
            <td class="money">{moneyText(w.fees.total)}</td>
            <td>{label(WITHDRAWAL_STATUS, w.status)}</td>
          </tr>
        ))}
      </Table>
      <button type="button" class="secondary" onClick={onClose}>
        Fechar
      </button>
    </Card>
  );
}

/** A period paid, or why it paid nothing (its available balance then waits for the next period). */
function lastPayoutText(last: { period: string; paid: boolean; skippedReason: string | null }): string {
  if (last.paid) return `${day(last.period)}: saque feito.`;
  const why =
    last.skippedReason === 'NOTHING_AVAILABLE'
      ? 'Nada disponível.'
      : errorMeaning(last.skippedReason ?? 'GENERAL_ERROR', '');
  return `${day(last.period)}: nenhum saque. ${why} O saldo fica para o próximo período.`;
}

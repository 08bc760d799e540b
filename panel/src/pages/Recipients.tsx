import { useEffect, useState } from 'preact/hooks';
import {
  api,
  can,
  type Recipient,
  type RecipientReceivables,
  type Sale,
  type StatementLine,
  type Withdrawal,
} from '../api';
import { date, day, money, moneyText } from '../ui/format';
import { Card, DetailsButton, ErrorText, fieldMarks, Table, useAttempt } from '../ui/kit';
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
 * sales whose split includes it (with its share), its receivables, withdrawals and statement (the API's own
 * recipient routes, by the session), and let whoever may move money rename or deactivate it.
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
        head={['Nome', 'Documento', 'Situação', 'Repasse', 'Disponível', 'Bloqueado', 'A receber', '']}
        empty={loaded && rows.length === 0 && !error && 'Nenhum recebedor cadastrado.'}
      >
        {rows.map((r) => (
          <tr key={r.id}>
            <td class="text">{r.name}</td>
            <td>{r.document}</td>
            <td>{r.active ? 'Ativo' : 'Inativo'}</td>
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
      {selected && (
        <RecipientDetail
          key={selected.id}
          recipient={selected}
          onChanged={(changed) => {
            const next = { ...selected, name: changed.name, active: changed.active };
            setSelected(next);
            setRows((prev) => prev.map((r) => (r.id === next.id ? next : r)));
          }}
          onClose={() => setSelected(null)}
        />
      )}
    </>
  );
}

function RecipientDetail({
  recipient,
  onChanged,
  onClose,
}: {
  recipient: Recipient;
  onChanged: (changed: { name: string; active: boolean }) => void;
  onClose: () => void;
}) {
  const [sales, setSales] = useState<Sale[] | null>(null);
  const [receivables, setReceivables] = useState<RecipientReceivables | null>(null);
  const [withdrawals, setWithdrawals] = useState<Withdrawal[] | null>(null);
  const [withdrawalsCursor, setWithdrawalsCursor] = useState<string | null>(null);
  const [lines, setLines] = useState<StatementLine[] | null>(null);
  const [linesCursor, setLinesCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const moreWithdrawals = (after?: string) =>
    api
      .recipientWithdrawals(recipient.id, after)
      .then((p) => {
        setWithdrawals((prev) => (after ? [...(prev ?? []), ...p.data] : p.data));
        setWithdrawalsCursor(p.nextCursor);
      })
      .catch(setError);
  const moreLines = (after?: string) =>
    api
      .recipientStatement(recipient.id, after)
      .then((p) => {
        setLines((prev) => (after ? [...(prev ?? []), ...p.data] : p.data));
        setLinesCursor(p.nextCursor);
      })
      .catch(setError);
  useEffect(() => {
    api
      .sales({ recipientId: recipient.id, limit: '20' })
      .then((p) => setSales(p.data))
      .catch(setError);
    api.recipientReceivables(recipient.id).then(setReceivables).catch(setError);
    void moreWithdrawals();
    void moreLines();
  }, [recipient.id]);
  const share = (s: Sale) => s.split?.find((p) => p.recipientId === recipient.id)?.netCents ?? null;
  return (
    <Card title={recipient.name} reveal={recipient.id}>
      <dl class="detail">
        <dt>Situação</dt>
        <dd>
          {recipient.active
            ? 'Ativo'
            : 'Inativo: não entra em novas divisões de venda; saldo, recebíveis e repasses continuam.'}
        </dd>
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
      {can('withdrawals.create') && <RecipientChanges recipient={recipient} onChanged={onChanged} />}
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
      <h3>Recebíveis</h3>
      <p class="muted">Parcelas de cartão ainda por liberar (próximos 90 dias).</p>
      <Table
        label={`Recebíveis de ${recipient.name}`}
        head={['Data', 'Venda', 'Parcela', 'Valor']}
        empty={receivables !== null && receivables.data.length === 0 && 'Nenhuma parcela a receber.'}
      >
        {(receivables?.data ?? []).map((r) => (
          <tr key={`${r.saleId}:${r.installment}`}>
            <td>{day(r.date)}</td>
            <td>
              <a href={`#/vendas/${r.saleId}`}>{r.saleId.slice(0, 8)}</a>
            </td>
            <td>{r.installment}</td>
            <td class="money">{money(r.amountCents)}</td>
          </tr>
        ))}
      </Table>
      {receivables !== null && receivables.data.length > 0 && (
        <p>
          Total a receber: <strong>{money(receivables.totalCents)}</strong>
        </p>
      )}
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
      {withdrawalsCursor && (
        <button type="button" class="secondary" onClick={() => void moreWithdrawals(withdrawalsCursor)}>
          Mais saques
        </button>
      )}
      <h3>Extrato</h3>
      <Table
        label={`Extrato de ${recipient.name}`}
        head={['Data', 'Descrição', 'Disponível', 'Bloqueado', 'A receber', 'Saldo disponível']}
        empty={lines !== null && lines.length === 0 && 'Nenhum lançamento.'}
      >
        {(lines ?? []).map((l) => (
          <tr key={l.id}>
            <td>{date(l.createdAt)}</td>
            <td class="text">{l.description}</td>
            <td class="money">{money(l.availableDelta)}</td>
            <td class="money">{money(l.blockedDelta)}</td>
            <td class="money">{money(l.receivableDelta)}</td>
            <td class="money">{money(l.availableAfter)}</td>
          </tr>
        ))}
      </Table>
      {linesCursor && (
        <button type="button" class="secondary" onClick={() => void moreLines(linesCursor)}>
          Mais lançamentos
        </button>
      )}
      <button type="button" class="secondary" onClick={onClose}>
        Fechar
      </button>
    </Card>
  );
}

/** Rename, deactivate or reactivate a recipient (PATCH /api/recipients/{id}; its document never changes). */
function RecipientChanges({
  recipient,
  onChanged,
}: {
  recipient: Recipient;
  onChanged: (changed: { name: string; active: boolean }) => void;
}) {
  const [name, setName] = useState(recipient.name);
  const [done, setDone] = useState('');
  const { error, act } = useAttempt(() => setDone(''));
  return (
    <>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const changed = await api.updateRecipient(recipient.id, { name: name.trim() });
            onChanged(changed);
            setDone('Nome alterado.');
          });
        }}
      >
        <div>
          <label for="r-name">Nome</label>
          <input
            id="r-name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...fieldMarks(error, 'name', 'r-name').attrs}
          />
          {fieldMarks(error, 'name', 'r-name').message}
        </div>
        <button type="submit">Renomear</button>
        <button
          type="button"
          class="secondary"
          aria-label={`${recipient.active ? 'Desativar' : 'Reativar'} o recebedor ${recipient.name}`}
          onClick={() =>
            void act(async () => {
              const changed = await api.updateRecipient(recipient.id, { active: !recipient.active });
              onChanged(changed);
              setDone(changed.active ? 'Recebedor reativado.' : 'Recebedor desativado.');
            })
          }
        >
          {recipient.active ? 'Desativar' : 'Reativar'}
        </button>
      </form>
      {done && <p role="status">{done}</p>}
      <ErrorText error={error} />
    </>
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

import { useEffect, useState } from 'preact/hooks';
import { api, type Balance, type Sale, type Withdrawal } from '../api';
import { DailyChart, type Day } from '../ui/DailyChart';
import { date, money, moneyText } from '../ui/format';
import { Card, ErrorText, Table } from '../ui/kit';
import { label, METHODS, SALE_STATUS, WITHDRAWAL_STATUS } from '../ui/labels';

export function Overview() {
  const [balance, setBalance] = useState<Balance | null>(null);
  const [sales, setSales] = useState<Sale[]>([]);
  const [withdrawals, setWithdrawals] = useState<Withdrawal[]>([]);
  const [days, setDays] = useState<Day[] | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    // the chart comes on its own: should it fail, the balance still shows
    api.daily().then((d) => setDays(d.days), setError);
    Promise.all([api.balance(), api.sales({ limit: '5' }), api.withdrawals({ limit: '5' })])
      .then(([b, s, w]) => {
        setBalance(b);
        setSales(s.data);
        setWithdrawals(w.data);
        setLoaded(true);
      })
      .catch(setError);
  }, []);
  return (
    <>
      <h1>Visão geral</h1>
      <ErrorText error={error} />
      <div class="balances">
        <div class="stat">
          <span>Disponível</span>
          <strong data-testid="balance-available">{balance ? money(balance.available) : '…'}</strong>
        </div>
        <div class="stat">
          <span>Bloqueado</span>
          <strong data-testid="balance-blocked">{balance ? money(balance.blocked) : '…'}</strong>
        </div>
        <div class="stat">
          <span>Total</span>
          <strong data-testid="balance-total">{balance ? money(balance.total) : '…'}</strong>
        </div>
        <div class="stat">
          <span>A receber (cartões)</span>
          <strong data-testid="balance-receivable">
            {balance ? <a href="#/recebiveis">{money(balance.receivable)}</a> : '…'}
          </strong>
        </div>
      </div>
      <Card title="Últimos 30 dias">
        {days ? <DailyChart days={days} /> : <p class="muted">Carregando…</p>}
      </Card>
      <Card title="Vendas recentes">
        <Table
          label="Vendas recentes"
          head={['Data', 'Cliente', 'Forma', 'Valor', 'Status']}
          empty={loaded && sales.length === 0 && 'Nenhuma venda ainda.'}
        >
          {sales.map((s) => (
            <tr key={s.id}>
              <td>{date(s.date)}</td>
              <td class="text">{s.customer?.name}</td>
              <td>{label(METHODS, s.paymentMethod)}</td>
              <td class="money">{money(s.amount)}</td>
              <td>{label(SALE_STATUS, s.status)}</td>
            </tr>
          ))}
        </Table>
      </Card>
      <Card title="Saques recentes">
        <Table
          label="Saques recentes"
          head={['Data', 'Chave PIX', 'Valor', 'Status']}
          empty={loaded && withdrawals.length === 0 && 'Nenhum saque ainda.'}
        >
          {withdrawals.map((w) => (
            <tr key={w.id}>
              <td>{date(w.createdAt)}</td>
              <td class="text">{w.pixKey}</td>
              <td class="money">{moneyText(w.amount)}</td>
              <td>{label(WITHDRAWAL_STATUS, w.status)}</td>
            </tr>
          ))}
        </Table>
      </Card>
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { date, money, moneyText } from '../../ui/format';
import { Card, ErrorText, Table, useAttempt } from '../../ui/kit';
import { DISPUTE_STATUS, label, SALE_STATUS, WITHDRAWAL_STATUS } from '../../ui/labels';
import { type AccountDetail, type AccountProfile, api, reaches } from '../api';
import { ACCOUNT_STATUS, DOCUMENT_KIND, documentText, METHOD, TRANSFER_INTERVAL } from '../labels';
import { AccountAudit } from './Audit';
import { AccountDeliveries } from './Deliveries';
import { AssignPlan } from './FeePlans';
import { HeldActions } from './Withdrawals';

/** What an operator may do to an account in its status (the server decides; this offers what will work). */
function actionsFor(a: AccountProfile) {
  const all: { action: string; text: string; reason: boolean; show: boolean }[] = [
    {
      action: 'approve',
      text: 'Aprovar cadastro',
      reason: false,
      show: a.status === 'pending_review' && reaches('admin'),
    },
    {
      action: 'reject',
      text: 'Recusar cadastro',
      reason: true,
      show: a.status === 'pending_review' && reaches('admin'),
    },
    {
      action: 'suspend',
      text: 'Suspender conta',
      reason: true,
      show: a.status === 'active' && reaches('risk'),
    },
    {
      action: 'reactivate',
      text: 'Reativar conta',
      reason: false,
      show: a.status === 'suspended' && reaches('risk'),
    },
    {
      action: 'close',
      text: 'Encerrar conta',
      reason: true,
      show: (a.status === 'active' || a.status === 'suspended') && reaches('admin'),
    },
    {
      action: 'payout-hold',
      text: 'Reter saques',
      reason: true,
      show: !a.payoutHold && a.status !== 'closed' && reaches('risk'),
    },
    {
      action: 'payout-release',
      text: 'Liberar saques',
      reason: false,
      show: a.payoutHold && reaches('risk'),
    },
  ];
  return all.filter((x) => x.show);
}

function Actions({ account, onChanged }: { account: AccountProfile; onChanged: () => void }) {
  const [reason, setReason] = useState('');
  const { error, attempt } = useAttempt();
  const actions = actionsFor(account);
  if (actions.length === 0) return null;
  return (
    <Card title="Ações">
      <label for="reason">Motivo (enviado ao dono da conta e guardado na auditoria)</label>
      <textarea
        id="reason"
        rows={2}
        maxLength={500}
        value={reason}
        onInput={(e) => setReason(e.currentTarget.value)}
      />
      <div class="actions">
        {actions.map((x) => (
          <button
            key={x.action}
            type="button"
            class={
              x.action === 'suspend' || x.action === 'reject' || x.action === 'close' ? 'danger' : undefined
            }
            disabled={x.reason && reason.trim() === ''}
            onClick={() =>
              attempt(async () => {
                await api.accountAction(account.id, x.action, reason.trim() || undefined);
                setReason('');
                onChanged();
              })
            }
          >
            {x.text}
          </button>
        ))}
      </div>
      <p class="muted">
        Suspender, recusar, encerrar e reter saques pedem um motivo. Encerrar recusa as chaves e sessões da
        conta, cancela as cobranças em aberto e as assinaturas; o saldo, os recebíveis e os saques aceitos
        seguem.
      </p>
      <ErrorText error={error} />
    </Card>
  );
}

function Profile({ a }: { a: AccountProfile }) {
  const address = a.address
    ? [
        a.address.street,
        a.address.number,
        a.address.complement,
        a.address.district,
        a.address.city,
        a.address.state,
        a.address.zipCode,
      ]
        .filter(Boolean)
        .join(', ')
    : '—';
  return (
    <dl class="detail">
      <dt>Situação</dt>
      <dd>
        <span class={`badge status-${a.status}`}>{label(ACCOUNT_STATUS, a.status)}</span>
        {a.statusReason && <span class="muted"> — {a.statusReason}</span>}
      </dd>
      <dt>Saques</dt>
      <dd>
        {a.payoutHold
          ? `Retidos para análise${a.payoutHoldReason ? ` — ${a.payoutHoldReason}` : ''}`
          : 'Liberados'}
      </dd>
      <dt>Razão social</dt>
      <dd>{a.legalName ?? '—'}</dd>
      <dt>CPF/CNPJ</dt>
      <dd>{documentText(a.document)}</dd>
      <dt>E-mail</dt>
      <dd>{a.email}</dd>
      <dt>Telefone</dt>
      <dd>{a.phone ?? '—'}</dd>
      <dt>Endereço</dt>
      <dd>{address}</dd>
      <dt>Criada em</dt>
      <dd>{date(a.createdAt)}</dd>
    </dl>
  );
}

/**
 * One account, whole: profile and documents, balance, fees, reviews, sales, withdrawals, disputes, its recipients
 * (split payments), audit.
 */
export function Account({ id }: { id: number }) {
  const [detail, setDetail] = useState<AccountDetail | null>(null);
  const { error, attempt } = useAttempt();
  const load = () => attempt(async () => setDetail(await api.account(id)));
  useEffect(() => {
    void load();
  }, [id]);
  if (!detail) return <ErrorText error={error} />;
  const a = detail.account;
  return (
    <section>
      <p>
        <a href="#/">← Contas</a>
      </p>
      <h1>
        {a.name} <span class="muted">#{a.id}</span>
      </h1>
      <ErrorText error={error} />
      <div class="grid">
        <Card title="Cadastro">
          <Profile a={a} />
        </Card>
        <Card title="Saldo">
          <dl class="detail">
            <dt>Disponível</dt>
            <dd>{money(detail.balance.available)}</dd>
            <dt>Bloqueado</dt>
            <dd>{money(detail.balance.blocked)}</dd>
            <dt>A receber (cartão)</dt>
            <dd>{money(detail.balance.receivable)}</dd>
          </dl>
        </Card>
        <Card title="Tarifas">
          <dl class="detail">
            <dt>Venda</dt>
            <dd>
              {String(detail.fees.saleFeePercent ?? '0')} % +{' '}
              {moneyText(String(detail.fees.saleFeeFixed ?? '0'))}
            </dd>
            <dt>Cartão</dt>
            <dd>
              {String(detail.fees.cardFeePercent ?? '0')} % (+{' '}
              {String(detail.fees.cardInstallmentFeePercent ?? '0')} % por parcela)
            </dd>
            <dt>Saque</dt>
            <dd>
              {moneyText(String(detail.fees.cashoutFeeFixed ?? '0'))} +{' '}
              {String(detail.fees.cashoutFeePercent ?? '0')} %
            </dd>
            <dt>Plano</dt>
            <dd>
              {detail.fees.feePlanId === undefined || detail.fees.feePlanId === 'none'
                ? 'Nenhum: as tarifas acima'
                : `Plano #${String(detail.fees.feePlanId)} (no lugar das tarifas acima)`}
            </dd>
            <dt>Reserva</dt>
            <dd>{String(detail.fees.reservePercent ?? '0')} %</dd>
          </dl>
        </Card>
      </div>
      <AssignPlan accountId={a.id} onDone={load} />
      <Actions account={a} onChanged={load} />
      <Card title="Documentos">
        {detail.documents.length === 0 ? (
          <p class="muted">Nenhum documento enviado.</p>
        ) : (
          <ul>
            {detail.documents.map((d) => (
              <li key={d.id}>
                <a href={api.documentUrl(a.id, d.id)} target="_blank" rel="noopener noreferrer">
                  {label(DOCUMENT_KIND, d.kind)}
                </a>{' '}
                <span class="muted">
                  (
                  {d.contentType === 'application/pdf'
                    ? 'PDF'
                    : d.contentType === 'image/png'
                      ? 'PNG'
                      : 'JPEG'}
                  , {Math.ceil(d.sizeBytes / 1024)} KB, {date(d.uploadedAt)})
                </span>
              </li>
            ))}
          </ul>
        )}
        {a.status === 'pending_review' && detail.missingDocuments.length > 0 && (
          <p>Faltam: {detail.missingDocuments.map((k) => label(DOCUMENT_KIND, k)).join(', ')}.</p>
        )}
      </Card>
      <Card title="Vendas recentes">
        <Table
          label="Vendas recentes"
          head={['Venda', 'Forma', 'Valor', 'Situação', 'Criada em']}
          empty={detail.sales.length === 0 && 'Nenhuma venda.'}
        >
          {(
            detail.sales as {
              id: number;
              paymentMethod: string;
              amount: number;
              status: string;
              date: string;
            }[]
          ).map((s) => (
            <tr key={s.id}>
              <td>#{s.id}</td>
              <td>{label(METHOD, s.paymentMethod)}</td>
              <td>{money(s.amount)}</td>
              <td>{label(SALE_STATUS, s.status)}</td>
              <td>{date(s.date)}</td>
            </tr>
          ))}
        </Table>
      </Card>
      <Card title="Saques recentes">
        <Table
          label="Saques recentes"
          head={['Saque', 'Valor', 'Chave PIX', 'Situação', 'Criado em', 'Ações']}
          empty={detail.withdrawals.length === 0 && 'Nenhum saque.'}
        >
          {detail.withdrawals.map((w) => (
            <tr key={w.id}>
              <td>#{w.id}</td>
              <td>{moneyText(w.amount)}</td>
              <td>{w.pixKey}</td>
              <td>{label(WITHDRAWAL_STATUS, w.status)}</td>
              <td>{date(w.createdAt)}</td>
              <td>{w.status === 'AWAITING_REVIEW' ? <HeldActions withdrawal={w} onDone={load} /> : '—'}</td>
            </tr>
          ))}
        </Table>
      </Card>
      <Card title="Contestações">
        <Table
          label="Contestações da conta"
          head={['Venda', 'Valor', 'Situação', 'Prazo']}
          empty={detail.disputes.length === 0 && 'Nenhuma contestação.'}
        >
          {(
            detail.disputes as {
              id: string;
              saleId: string;
              amountCents: number;
              status: string;
              respondBy: string;
            }[]
          ).map((d) => (
            <tr key={d.id}>
              <td>{d.saleId.slice(0, 8)}</td>
              <td>{money(d.amountCents)}</td>
              <td>{label(DISPUTE_STATUS, d.status)}</td>
              <td>{date(d.respondBy)}</td>
            </tr>
          ))}
        </Table>
      </Card>
      <Card title="Recebedores">
        <Table
          label="Recebedores da conta (pagamentos divididos)"
          head={[
            'Nome',
            'CPF/CNPJ',
            'Chave Pix',
            'Situação',
            'Repasse',
            'Disponível',
            'Bloqueado',
            'A receber',
          ]}
          empty={detail.recipients.length === 0 && 'Nenhum recebedor.'}
        >
          {detail.recipients.map((r) => (
            <tr key={r.id}>
              <td>{r.name}</td>
              <td>{documentText(r.document)}</td>
              <td>{r.pixKey}</td>
              <td>{r.active ? 'Ativo' : 'Inativo'}</td>
              <td>{label(TRANSFER_INTERVAL, r.transferInterval)}</td>
              <td>{money(r.balance.available)}</td>
              <td>{money(r.balance.blocked)}</td>
              <td>{money(r.balance.receivable)}</td>
            </tr>
          ))}
        </Table>
      </Card>
      <AccountDeliveries accountId={a.id} />
      <AccountAudit accountId={a.id} />
    </section>
  );
}

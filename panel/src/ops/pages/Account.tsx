import { useEffect, useState } from 'preact/hooks';
import { date, fileSize, money, moneyText } from '../../ui/format';
import { Card, ErrorText, Table, useAttempt } from '../../ui/kit';
import { DISPUTE_STATUS, label, SALE_STATUS, WITHDRAWAL_STATUS } from '../../ui/labels';
import { type AccountDetail, type AccountProfile, api, reaches } from '../api';
import { Decision } from '../Decision';
import { ACCOUNT_STATUS, DOCUMENT_KIND, documentText, METHOD, TRANSFER_INTERVAL } from '../labels';
import { MissingDocuments } from '../MissingDocuments';
import { hasOwnPlan, PlanChoiceFields, usePlanChoice } from '../PlanChoice';
import { AccountAudit } from './Audit';
import { AccountDeliveries } from './Deliveries';
import { AssignPlan, pct } from './FeePlans';
import { HeldActions } from './Withdrawals';

type ActionName =
  | 'approve'
  | 'reject'
  | 'suspend'
  | 'reactivate'
  | 'close'
  | 'payout-hold'
  | 'payout-release'
  | 'card-payments-resume';

interface ActionText {
  label: string;
  title: string;
  /** What happens, said in the dialog before anything is sent. */
  effect: string;
  done: string;
  danger?: boolean;
  /** Asks for a reason (sent to the owner and kept in the audit). */
  reason?: boolean;
}

const ACTION_TEXT: Record<ActionName, ActionText> = {
  approve: {
    label: 'Aprovar cadastro',
    title: 'Aprovar o cadastro?',
    effect: 'A conta passa a fazer cobranças e saques reais. O dono é avisado por e-mail.',
    done: 'Cadastro aprovado. O dono da conta foi avisado por e-mail.',
  },
  reject: {
    label: 'Recusar cadastro',
    title: 'Recusar o cadastro?',
    effect: 'A conta é encerrada. O dono recebe o motivo por e-mail.',
    done: 'Cadastro recusado. O dono da conta recebeu o motivo por e-mail.',
    danger: true,
    reason: true,
  },
  suspend: {
    label: 'Suspender conta',
    title: 'Suspender a conta?',
    effect:
      'Novas cobranças e saques ficam bloqueados; consultas, estornos e respostas a contestações seguem. O dono vê o motivo no painel e o recebe por e-mail.',
    done: 'Conta suspensa. O dono vê o motivo no painel e o recebeu por e-mail.',
    danger: true,
    reason: true,
  },
  reactivate: {
    label: 'Reativar conta',
    title: 'Reativar a conta?',
    effect: 'Cobranças e saques voltam a funcionar. O dono é avisado por e-mail.',
    done: 'Conta reativada. O dono foi avisado por e-mail.',
  },
  close: {
    label: 'Encerrar conta',
    title: 'Encerrar a conta?',
    effect:
      'As chaves e sessões da conta passam a ser recusadas, as cobranças em aberto e as assinaturas são canceladas; o saldo, os recebíveis e os saques aceitos seguem. Não há como desfazer.',
    done: 'Conta encerrada.',
    danger: true,
    reason: true,
  },
  'payout-hold': {
    label: 'Reter saques',
    title: 'Reter os saques da conta?',
    effect:
      'Os novos saques são aceitos, mas esperam uma análise (Saques › Em análise). O dono vê o motivo no painel e o recebe por e-mail.',
    done: 'Saques retidos para análise. O dono vê o motivo no painel.',
    danger: true,
    reason: true,
  },
  'payout-release': {
    label: 'Liberar saques',
    title: 'Liberar os saques da conta?',
    effect:
      'Os novos saques seguem direto para o pagamento, e os que esperam análise por esta retenção são liberados para pagamento agora.',
    done: 'Saques liberados.',
  },
  'card-payments-resume': {
    label: 'Retomar pagamentos com cartão',
    title: 'Retomar os pagamentos com cartão?',
    effect:
      'Os pagamentos com cartão da conta, pausados por excesso de recusas, voltam a ser aceitos. Faça isso depois de falar com o lojista, se a análise de risco foi recusada.',
    done: 'Pagamentos com cartão retomados.',
  },
};

/** What an operator may do to an account in its status (the server decides; this offers what will work). */
function actionsFor(a: AccountProfile): ActionName[] {
  const all: [ActionName, boolean][] = [
    ['approve', a.status === 'pending_review' && reaches('admin')],
    ['reject', a.status === 'pending_review' && reaches('admin')],
    ['suspend', a.status === 'active' && reaches('risk')],
    ['reactivate', a.status === 'suspended' && reaches('risk')],
    ['close', (a.status === 'active' || a.status === 'suspended') && reaches('admin')],
    ['payout-hold', !a.payoutHold && a.status !== 'closed' && reaches('risk')],
    ['payout-release', a.payoutHold && reaches('risk')],
    ['card-payments-resume', a.cardPaymentsPaused && a.status !== 'closed' && reaches('risk')],
  ];
  return all.filter(([, show]) => show).map(([name]) => name);
}

/** A decision on the account that takes a reason (or none), confirmed in its dialog. */
function AccountDecision({
  account,
  action,
  onChanged,
}: {
  account: AccountProfile;
  action: ActionName;
  onChanged: () => void;
}) {
  const text = ACTION_TEXT[action];
  const [reason, setReason] = useState('');
  const field = `reason-${action}`;
  return (
    <Decision
      label={text.label}
      title={text.title}
      danger={text.danger}
      ready={!text.reason || reason.trim() !== ''}
      waiting="Escreva o motivo para confirmar."
      onOpen={() => setReason('')}
      run={async () => {
        await api.accountAction(account.id, action, reason.trim() || undefined);
        return text.done;
      }}
      onDone={onChanged}
    >
      <p>
        <strong>{account.name}</strong> — {text.effect}
      </p>
      {text.reason && (
        <>
          <label for={field}>Motivo (enviado ao dono da conta e guardado na auditoria)</label>
          <textarea
            id={field}
            rows={3}
            maxLength={500}
            required
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
        </>
      )}
    </Decision>
  );
}

/**
 * Approval needs a fee plan: the account's, else the platform's default (FEE_PLAN_DEFAULT). An account without
 * its own plan is offered the plans here; when the server answers that there is no default either, a plan must
 * be chosen, and it is put on the account just before the approval.
 */
function Approve({
  account,
  hasPlan,
  missing,
  onChanged,
}: {
  account: AccountProfile;
  hasPlan: boolean;
  /** The onboarding documents it has not sent. */
  missing: string[];
  onChanged: () => void;
}) {
  const text = ACTION_TEXT.approve;
  const choice = usePlanChoice();
  return (
    <Decision
      label={text.label}
      title={text.title}
      ready={choice.ready}
      waiting="Escolha um plano de tarifas para confirmar."
      onOpen={() => choice.open(hasPlan)}
      run={async () => {
        const plan = await choice.approve(account.id, () => api.accountAction(account.id, 'approve'));
        return plan ? `${text.done} Plano de tarifas: ${plan.name}.` : text.done;
      }}
      onDone={onChanged}
    >
      <p>
        <strong>{account.name}</strong> — {text.effect}
      </p>
      <MissingDocuments missing={missing} />
      <PlanChoiceFields choice={choice} id="approve-plan" />
    </Decision>
  );
}

function Actions({
  account,
  hasPlan,
  missing,
  onChanged,
}: {
  account: AccountProfile;
  hasPlan: boolean;
  missing: string[];
  onChanged: () => void;
}) {
  const actions = actionsFor(account);
  if (actions.length === 0) return null;
  return (
    <Card title="Ações">
      <div class="actions">
        {actions.map((action) =>
          action === 'approve' ? (
            <Approve
              key={action}
              account={account}
              hasPlan={hasPlan}
              missing={missing}
              onChanged={onChanged}
            />
          ) : (
            <AccountDecision key={action} account={account} action={action} onChanged={onChanged} />
          ),
        )}
      </div>
      <p class="muted">
        Cada ação pede confirmação. Suspender, recusar, encerrar e reter saques pedem um motivo, que o dono da
        conta recebe por e-mail e vê no painel.
      </p>
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
      <dt>Pagamentos com cartão</dt>
      <dd>{a.cardPaymentsPaused ? 'Pausados: recusas demais em uma hora (análise de risco)' : 'Aceitos'}</dd>
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
  const hasPlan = hasOwnPlan(detail);
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
          {detail.plan ? (
            <dl class="detail">
              <dt>Plano</dt>
              <dd>{detail.plan.name} (no lugar das tarifas próprias da conta)</dd>
              <dt>PIX</dt>
              <dd>
                {pct(detail.plan.pixPercent)} + {money(detail.plan.pixFixedCents)}
              </dd>
              <dt>Boleto</dt>
              <dd>{money(detail.plan.boletoFixedCents)}</dd>
              <dt>Crédito</dt>
              <dd>
                {[
                  `à vista ${pct(detail.plan.creditPercent['1'])}`,
                  `2 a 6x ${pct(detail.plan.creditPercent['2-6'])}`,
                  `7 a 12x ${pct(detail.plan.creditPercent['7-12'])}`,
                ].join('; ')}
              </dd>
              <dt>Débito</dt>
              <dd>{pct(detail.plan.debitPercent)}</dd>
              <dt>Antecipação</dt>
              <dd>{pct(detail.plan.anticipationMonthlyPercent)} ao mês</dd>
              <dt>Saque</dt>
              <dd>{money(detail.plan.cashoutFixedCents)}</dd>
              <dt>Reserva</dt>
              <dd>{pct(String(detail.fees.reservePercent ?? '0'))}</dd>
            </dl>
          ) : (
            <dl class="detail">
              <dt>Venda</dt>
              <dd>
                {pct(String(detail.fees.saleFeePercent ?? '0'))} +{' '}
                {moneyText(String(detail.fees.saleFeeFixed ?? '0'))}
              </dd>
              <dt>Cartão</dt>
              <dd>
                {pct(String(detail.fees.cardFeePercent ?? '0'))} (+{' '}
                {pct(String(detail.fees.cardInstallmentFeePercent ?? '0'))} por parcela)
              </dd>
              <dt>Saque</dt>
              <dd>
                {moneyText(String(detail.fees.cashoutFeeFixed ?? '0'))} +{' '}
                {pct(String(detail.fees.cashoutFeePercent ?? '0'))}
              </dd>
              <dt>Antecipação</dt>
              <dd>{pct(String(detail.fees.anticipationMonthlyPercent ?? '0'))} ao mês</dd>
              <dt>Plano</dt>
              <dd>Nenhum: as tarifas acima</dd>
              <dt>Reserva</dt>
              <dd>{pct(String(detail.fees.reservePercent ?? '0'))}</dd>
            </dl>
          )}
          {/* a closed account's prices no longer change (the server refuses it) */}
          {a.status !== 'closed' && <AssignPlan accountId={a.id} onDone={load} />}
        </Card>
      </div>
      <Actions account={a} hasPlan={hasPlan} missing={detail.missingDocuments} onChanged={load} />
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
                  , {fileSize(d.sizeBytes)}, {date(d.uploadedAt)})
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

import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type Review, reaches } from '../api';
import { Decision } from '../Decision';
import { REVIEW_KIND } from '../labels';
import { MissingDocuments } from '../MissingDocuments';
import { hasOwnPlan, PlanChoiceFields, usePlanChoice } from '../PlanChoice';

function Decide({ review, onDone }: { review: Review; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState<string[]>([]);
  const choice = usePlanChoice();
  const may = review.kind === 'onboarding' ? reaches('admin') : reaches('risk');
  if (!may) return <span class="muted">—</span>;
  const account = review.accountName ?? `#${review.accountId}`;
  const onboarding = review.kind === 'onboarding';
  return (
    <>
      <Decision
        label="Aprovar"
        ariaLabel={`Aprovar a análise ${review.id}`}
        title="Aprovar a análise?"
        ready={!onboarding || choice.ready}
        waiting="Escolha um plano de tarifas para confirmar."
        onOpen={() => {
          // an onboarding approval needs a fee plan: the account's, the platform's default, or one chosen here
          if (onboarding) {
            setMissing([]);
            void api.account(review.accountId).then((d) => {
              setMissing(d.missingDocuments);
              choice.open(hasOwnPlan(d));
            });
          }
        }}
        run={async () => {
          if (!onboarding) {
            await api.decideReview(review.id, 'approve');
            return `Análise #${review.id} aprovada.`;
          }
          const plan = await choice.approve(review.accountId, () => api.decideReview(review.id, 'approve'));
          const done = `Cadastro de ${account} aprovado. O dono da conta foi avisado por e-mail.`;
          return plan ? `${done} Plano de tarifas: ${plan.name}.` : done;
        }}
        onDone={onDone}
      >
        <p>
          {onboarding
            ? `${account} passa a fazer cobranças e saques reais.`
            : `${account}: ${review.reason}. Aprovar libera o que a análise segurava.`}
        </p>
        {onboarding && <MissingDocuments missing={missing} />}
        {onboarding && <PlanChoiceFields choice={choice} id={`review-plan-${review.id}`} />}
      </Decision>{' '}
      <Decision
        label="Recusar"
        ariaLabel={`Recusar a análise ${review.id}`}
        title="Recusar a análise?"
        danger
        ready={reason.trim() !== ''}
        waiting="Escreva o motivo para confirmar."
        onOpen={() => setReason('')}
        run={async () => {
          await api.decideReview(review.id, 'reject', reason.trim());
          return onboarding
            ? `Cadastro de ${account} recusado. O dono recebeu o motivo por e-mail.`
            : `Análise #${review.id} recusada.`;
        }}
        onDone={onDone}
      >
        <p>
          {onboarding
            ? `O cadastro de ${account} é recusado e a conta encerrada.`
            : `${account}: ${review.reason}.`}
        </p>
        <label for={`review-reason-${review.id}`}>Motivo da recusa (enviado ao dono da conta)</label>
        <textarea
          id={`review-reason-${review.id}`}
          rows={3}
          maxLength={500}
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      </Decision>
    </>
  );
}

/** Fila de análise: onboarding and risk reviews, oldest first. */
export function Reviews() {
  const [kind, setKind] = useState('');
  const [rows, setRows] = useState<Review[] | null>(null);
  const { error, attempt } = useAttempt();
  const load = () => attempt(async () => setRows((await api.reviews(kind ? { kind } : {})).data));
  useEffect(() => {
    void load();
  }, [kind]);
  return (
    <section>
      <h1>Fila de análise</h1>
      <div class="filters">
        <div>
          <label for="kind">Tipo</label>
          <select id="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <Options labels={REVIEW_KIND} all="Todos" />
          </select>
        </div>
      </div>
      <ErrorText error={error} />
      {rows && (
        <Table
          label="Análises abertas"
          head={['Análise', 'Tipo', 'Conta', 'Motivo', 'Aberta em', 'Decisão']}
          empty={rows.length === 0 && 'Nada para analisar.'}
        >
          {rows.map((r) => (
            <tr key={r.id}>
              <td>#{r.id}</td>
              <td>{label(REVIEW_KIND, r.kind)}</td>
              <td>
                {/* the number too: two sign-ups may share a name */}
                <a href={`#/contas/${r.accountId}`}>
                  {r.accountName ? `${r.accountName} (#${r.accountId})` : `#${r.accountId}`}
                </a>
              </td>
              <td>{r.reason}</td>
              <td>{date(r.createdAt)}</td>
              <td>
                <Decide review={r} onDone={load} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type Review, reaches } from '../api';
import { REVIEW_KIND } from '../labels';

function Decide({ review, onDone }: { review: Review; onDone: () => void }) {
  const { error, attempt } = useAttempt();
  const may = review.kind === 'onboarding' ? reaches('admin') : reaches('risk');
  if (!may) return <span class="muted">—</span>;
  const decide = (decision: 'approve' | 'reject') =>
    attempt(async () => {
      const reason =
        decision === 'reject' ? (prompt('Motivo da recusa (enviado ao dono da conta):') ?? '').trim() : '';
      if (decision === 'reject' && reason === '') return;
      await api.decideReview(review.id, decision, reason || undefined);
      onDone();
    });
  return (
    <>
      <button type="button" aria-label={`Aprovar a análise ${review.id}`} onClick={() => decide('approve')}>
        Aprovar
      </button>{' '}
      <button
        type="button"
        class="danger"
        aria-label={`Recusar a análise ${review.id}`}
        onClick={() => decide('reject')}
      >
        Recusar
      </button>
      <ErrorText error={error} />
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
                <a href={`#/contas/${r.accountId}`}>#{r.accountId}</a>
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

import { useEffect, useState } from 'preact/hooks';
import { api, can, type Dispute } from '../api';
import { date, fileSize, money, timeLeft } from '../ui/format';
import { Card, DetailsButton, ErrorText, Options, Table, useAttempt } from '../ui/kit';
import { DISPUTE_KIND, DISPUTE_STATUS, label } from '../ui/labels';

const MAX_FILES = 10;
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_TEXT = 5000;

/** The deadline's countdown, redrawn every minute while the dispute awaits an answer. */
function Countdown({ dispute }: { dispute: Dispute }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  if (dispute.status !== 'needs_response') return <>{date(dispute.respondBy)}</>;
  const left = timeLeft(dispute.respondBy, now);
  const urgent = Date.parse(dispute.respondBy) - now < 2 * 86_400_000;
  return (
    <span class={urgent ? 'error' : undefined}>
      {left === 'prazo encerrado' ? left : `${left} restantes`} ({date(dispute.respondBy)})
    </span>
  );
}

/** The answer: files checked here as the server will (count, size, type), then sent as multipart. */
function Answer({ dispute, onDone }: { dispute: Dispute; onDone: (d: Dispute) => void }) {
  const [files, setFiles] = useState<File[]>([]);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const { error, act } = useAttempt();
  if (dispute.status !== 'needs_response' || !can('disputes.respond')) return null;
  const pick = (list: FileList | null) => {
    const chosen = [...(list ?? [])];
    const big = chosen.find((f) => f.size > MAX_FILE_BYTES);
    setProblem(
      chosen.length > MAX_FILES
        ? `Envie no máximo ${MAX_FILES} arquivos.`
        : big
          ? `${big.name} tem mais de 5 MB.`
          : '',
    );
    setFiles(chosen);
  };
  const send = () =>
    act(async () => {
      setBusy(true);
      try {
        const form = new FormData();
        for (const f of files) form.append('files', f, f.name);
        if (text.trim() !== '') form.append('text', text);
        onDone(await api.answerDispute(dispute.id, form));
      } finally {
        setBusy(false);
      }
    });
  const accept = () =>
    act(async () => {
      // it cannot be undone: asked first, as the panel's other irreversible steps are
      if (
        !window.confirm('Aceitar esta contestação? Ela é encerrada e o valor contestado não volta ao saldo.')
      )
        return;
      setBusy(true);
      try {
        onDone(await api.acceptDispute(dispute.id));
      } finally {
        setBusy(false);
      }
    });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <div>
        <label for="dispute-files">Provas (PDF, PNG ou JPEG, até 10 arquivos de 5 MB)</label>
        <input
          id="dispute-files"
          type="file"
          multiple
          accept="application/pdf,image/png,image/jpeg"
          onChange={(e) => pick(e.currentTarget.files)}
        />
      </div>
      <div>
        <label for="dispute-text">Sua resposta (até 5.000 caracteres)</label>
        <textarea
          id="dispute-text"
          maxLength={MAX_TEXT}
          rows={5}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </div>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <button type="submit" disabled={busy || problem !== '' || (files.length === 0 && text.trim() === '')}>
        Enviar resposta
      </button>
      <button type="button" class="danger" disabled={busy} onClick={() => void accept()}>
        Aceitar contestação
      </button>
      <p class="muted">Aceitar encerra a contestação: o valor não volta ao saldo.</p>
      <ErrorText error={error} />
    </form>
  );
}

function Detail({ id, onChanged }: { id: string; onChanged: () => void }) {
  const [dispute, setDispute] = useState<Dispute | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.dispute(id).then(setDispute, setError);
  }, [id]);
  if (error) return <ErrorText error={error} />;
  if (!dispute) return <p class="muted">Carregando…</p>;
  return (
    <Card title={`Contestação de ${money(dispute.amountCents)}`} reveal={id}>
      <dl class="detail">
        <dt>Tipo</dt>
        <dd>{label(DISPUTE_KIND, dispute.kind)}</dd>
        <dt>Situação</dt>
        <dd>{label(DISPUTE_STATUS, dispute.status)}</dd>
        <dt>Venda</dt>
        <dd>
          <a href={`#/vendas/${dispute.saleId}`}>{dispute.saleId}</a>
        </dd>
        <dt>Motivo</dt>
        <dd>{dispute.reason ?? '—'}</dd>
        <dt>Prazo de resposta</dt>
        <dd>
          <Countdown dispute={dispute} />
        </dd>
        <dt>Aberta em</dt>
        <dd>{date(dispute.createdAt)}</dd>
        <dt>Encerrada em</dt>
        <dd>{date(dispute.closedAt)}</dd>
      </dl>
      {dispute.status === 'under_review' && (
        <p class="ok" role="status">
          Resposta enviada. A decisão da adquirente ou do PSP aparece aqui quando chegar.
        </p>
      )}
      {dispute.responseText && (
        <>
          <h3>Sua resposta</h3>
          <p class="text">{dispute.responseText}</p>
        </>
      )}
      {dispute.evidence.length > 0 && (
        <ul aria-label="Provas enviadas">
          {dispute.evidence.map((e) => (
            <li key={e.id}>
              {e.name} ({fileSize(e.size)})
            </li>
          ))}
        </ul>
      )}
      <Answer
        dispute={dispute}
        onDone={(d) => {
          setDispute(d);
          onChanged();
        }}
      />
      {dispute.status === 'needs_response' && !can('disputes.respond') && (
        <p class="muted">Seu papel não permite responder contestações.</p>
      )}
    </Card>
  );
}

/** The dispute `#/contestacoes/<id>` names; null on the list's own address. */
const openOf = (hash: string) => /^#\/contestacoes\/([\w-]+)$/.exec(hash)?.[1] ?? null;

/**
 * `#/contestacoes`: chargebacks and MEDs, the deadline of each, and its answer; `#/contestacoes/<id>` the same
 * with that dispute open (each has its address: its e-mail links to it, a merchant may share it).
 */
export function Disputes() {
  const [status, setStatus] = useState('');
  const [rows, setRows] = useState<Dispute[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  // the dispute open is the address's: the list stays as it is (its filter, its pages) while one is opened
  const [open, setOpen] = useState(openOf(location.hash));
  useEffect(() => {
    const follow = () => setOpen(openOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const [error, setError] = useState<unknown>(null);
  const load = (more?: string) =>
    api
      .disputes({ status: status || undefined, cursor: more })
      .then((p) => {
        setRows((before) => (more ? [...(before ?? []), ...p.data] : p.data));
        setCursor(p.nextCursor);
      })
      .catch(setError);
  useEffect(() => {
    void load();
  }, [status]);
  return (
    <>
      <h1>Contestações</h1>
      <p class="muted">
        Chargebacks de cartão e MEDs de Pix. O valor contestado sai do saldo disponível até a decisão; sem
        resposta até o prazo, a contestação é perdida.
      </p>
      <div class="filters">
        <div>
          <label for="dispute-status">Situação</label>
          <select id="dispute-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <Options labels={DISPUTE_STATUS} all="Todas" />
          </select>
        </div>
      </div>
      <ErrorText error={error} />
      <Table
        label="Contestações"
        head={['Aberta em', 'Tipo', 'Valor', 'Situação', 'Prazo', '']}
        empty={rows?.length === 0 && 'Nenhuma contestação.'}
      >
        {(rows ?? []).map((d) => (
          <tr key={d.id}>
            <td>{date(d.createdAt)}</td>
            <td class="text">{label(DISPUTE_KIND, d.kind)}</td>
            <td class="money">{money(d.amountCents)}</td>
            <td class="text">{label(DISPUTE_STATUS, d.status)}</td>
            <td class="text">
              <Countdown dispute={d} />
            </td>
            <td>
              <DetailsButton
                label={`Detalhes da contestação de ${money(d.amountCents)}`}
                onClick={() => {
                  location.hash = `#/contestacoes/${d.id}`;
                }}
              />
            </td>
          </tr>
        ))}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Carregar mais
        </button>
      )}
      {open && <Detail key={open} id={open} onChanged={() => void load()} />}
    </>
  );
}

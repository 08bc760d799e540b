import { useEffect, useRef, useState } from 'preact/hooks';
import { date, day, money, saoPauloDay } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type Discrepancy, type ReconciliationRun } from '../api';
import { Decision } from '../Decision';
import { DISCREPANCY_KIND, RUN_SCHEDULE, RUN_STATUS } from '../labels';

/** The day after a YYYY-MM-DD day (the window's end is excluded: "até 30/11" ends at 01/12 00:00). */
const nextDay = (iso: string) =>
  new Date(Date.parse(`${iso}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
/** What a run found so far: the Pix the PSP listed, those that matched, what it credited and refunded. */
const outcome = (r: ReconciliationRun) =>
  [
    counted(r.received, 'Pix recebido', 'Pix recebidos'),
    counted(r.matched, 'conferido', 'conferidos'),
    counted(r.creditedNow, 'creditado agora', 'creditados agora'),
    counted(r.refundedNow, 'estornado agora', 'estornados agora'),
    counted(r.discrepancies, 'divergência', 'divergências'),
  ].join(' · ');
/** Reais as the PSP writes them ("30.00") in the console's money. */
const reais = (text: string) => money(Math.round(Number(text) * 100));
/**
 * A discrepancy's detail, recorded in English for the command line and the logs, in Portuguese where it is one of
 * the reconciliation's own; other details (a bank's return file, Pix Automático) as recorded (marked English).
 */
function detailText(detail: string): { text: string; english: boolean } {
  const rules: [RegExp, (m: RegExpExecArray) => string][] = [
    [/^no charge of the gateway has txid (\S+)$/, (m) => `nenhuma cobrança do gateway tem o txid ${m[1]}`],
    [/^a Pix to the key without a txid$/, () => 'Pix feito direto para a chave, sem txid'],
    [
      /^paid ([\d.]+), the charge is ([\d.]+)$/,
      (m) => `pago ${reais(m[1]!)}; a cobrança é de ${reais(m[2]!)}`,
    ],
    [
      /^paid ([\d.]+) after the charge's last day to be paid$/,
      (m) => `pago ${reais(m[1]!)} depois do último dia de pagamento da cobrança`,
    ],
    [
      /^credited as paid at (\S+); the PSP does not list it$/,
      (m) => `creditado como pago em ${date(m[1]!)}; o PSP não o lista`,
    ],
  ];
  for (const [pattern, say] of rules) {
    const m = pattern.exec(detail);
    if (m) return { text: say(m), english: false };
  }
  return { text: detail, english: true };
}
/** A discrepancy's detail cell: in Portuguese where known, else as recorded and marked English. */
function Detail({ text }: { text: string }) {
  const said = detailText(text);
  return (
    <td class="text" lang={said.english ? 'en' : undefined}>
      {said.text}
    </td>
  );
}
/** What "Resolver" suggests writing, by kind: returning the money where the payer is owed it. */
const RESOLVE_HINT: Record<string, string> = {
  unknown_charge: 'por exemplo, o Pix devolvido ao pagador pelo PSP, ou acertado com a loja',
  amount_mismatch: 'por exemplo, o Pix devolvido ao pagador pelo PSP, ou acertado com a loja',
  missing_at_psp: 'por exemplo, o que o PSP respondeu sobre este Pix e o que foi feito com o saldo da loja',
  duplicate_payment: 'por exemplo, o pagamento devolvido ao pagador (pelo PSP ou pelo banco)',
  closed_charge_paid: 'por exemplo, o pagamento devolvido ao pagador (pelo PSP ou pelo banco)',
};
/** The longest period one run covers (the server's limit too). */
const MAX_DAYS = 31;
/** Polled this often while a run is not finished. */
const POLL_MS = 3000;

/**
 * Conciliação (finance): the PSP's received Pix against the gateway's credits. The runs (every 10 minutes,
 * daily, and those asked for here), a period reconciled on demand, and the discrepancies kept, each resolved
 * with a note of what was done.
 */
export function Reconciliation() {
  const [runs, setRuns] = useState<ReconciliationRun[] | null>(null);
  const [enabled, setEnabled] = useState(true);
  const [schedule, setSchedule] = useState('');
  const [showResolved, setShowResolved] = useState(false);
  const [found, setFound] = useState<Discrepancy[] | null>(null);
  const [from, setFrom] = useState(saoPauloDay(1));
  const [to, setTo] = useState(saoPauloDay(1));
  const { error, attempt } = useAttempt();
  const toField = useRef<HTMLInputElement>(null);
  // a period of more than 31 days is stopped in the form, before the dialog (the server refuses it too)
  useEffect(() => {
    const days = (Date.parse(`${to}T12:00:00Z`) - Date.parse(`${from}T12:00:00Z`)) / 86_400_000 + 1;
    toField.current?.setCustomValidity(days > MAX_DAYS ? `Um período tem no máximo ${MAX_DAYS} dias.` : '');
  }, [from, to]);
  const loadRuns = () =>
    attempt(async () => {
      const answer = await api.reconciliationRuns(schedule || undefined);
      setEnabled(answer.enabled);
      setRuns(answer.data);
    });
  const loadFound = () => attempt(async () => setFound((await api.discrepancies(showResolved)).data));
  useEffect(() => {
    void loadRuns();
  }, [schedule]);
  useEffect(() => {
    void loadFound();
  }, [showResolved]);
  const busy = runs?.some((r) => r.status !== 'finished') ?? false;
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => {
      void loadRuns();
      void loadFound();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [busy, schedule, showResolved]);
  return (
    <section>
      <h1>Conciliação</h1>
      <p class="muted">
        Os Pix que o PSP recebeu, comparados com o que o gateway creditou. Roda sozinha a cada 10 minutos (as
        últimas duas horas) e todo dia às 03:00 (o dia anterior). Um Pix que o gateway não creditou é
        creditado agora, uma vez; o que não confere vira divergência e não move dinheiro.
      </p>
      {!enabled && (
        <p class="notice" role="status">
          Este gateway não concilia com um PSP: seus Pix passam pelo sandbox (PIX_PROCESSOR=bcb liga a
          conciliação). As divergências de boletos, como pagamentos em duplicidade, aparecem abaixo.
        </p>
      )}
      <ErrorText error={error} />
      {enabled && (
        <form class="filters" onSubmit={(e) => e.preventDefault()} aria-labelledby="reconcile-title">
          <h2 id="reconcile-title" class="sr-only">
            Conciliar um período
          </h2>
          <div>
            <label for="reconcile-from">De</label>
            <input
              id="reconcile-from"
              type="date"
              required
              max={saoPauloDay(0)}
              value={from}
              onInput={(e) => setFrom(e.currentTarget.value)}
            />
          </div>
          <div>
            <label for="reconcile-to">Até (inclusive)</label>
            <input
              ref={toField}
              id="reconcile-to"
              type="date"
              required
              min={from}
              max={saoPauloDay(0)}
              value={to}
              onInput={(e) => setTo(e.currentTarget.value)}
            />
          </div>
          <Decision
            submit
            label="Conciliar"
            title="Conciliar este período?"
            run={async () => {
              await api.reconcile(from, nextDay(to));
              return `Conciliação de ${day(from)} a ${day(to)} pedida: ela aparece abaixo e termina em instantes.`;
            }}
            onDone={() => void loadRuns()}
          >
            <p>
              Os Pix recebidos de {day(from)} a {day(to)} (horário de Brasília) são comparados com os créditos
              do gateway. Um Pix pago que o gateway não creditou é creditado agora, e a venda notificada; o
              que não confere fica como divergência.
            </p>
          </Decision>
        </form>
      )}
      <h2>Execuções</h2>
      <div class="filters">
        <div>
          <label for="run-schedule">Tipo</label>
          <select id="run-schedule" value={schedule} onChange={(e) => setSchedule(e.currentTarget.value)}>
            <Options labels={RUN_SCHEDULE} all="Todas" />
          </select>
        </div>
      </div>
      {runs && (
        <Table
          label="Execuções da conciliação"
          head={['Criada em', 'Tipo', 'Período', 'Situação', 'Resultado']}
          empty={runs.length === 0 && 'Nenhuma execução ainda.'}
        >
          {runs.map((r) => (
            <tr key={r.id}>
              <td>{date(r.createdAt)}</td>
              <td>
                {label(RUN_SCHEDULE, r.schedule)}
                {r.requestedBy && (
                  <span class="muted">
                    {' '}
                    por {r.requestedBy === 'cli' ? 'linha de comando' : r.requestedBy}
                  </span>
                )}
              </td>
              <td>
                {date(r.from)} a {date(r.to)}
              </td>
              <td>
                {label(RUN_STATUS, r.status)}
                {r.lastError && (
                  <span class="muted">
                    {' '}
                    (detalhe técnico: <span lang="en">{r.lastError}</span>)
                  </span>
                )}
              </td>
              <td>
                {r.status === 'finished' ? outcome(r) : r.received > 0 ? `${outcome(r)} (até agora)` : '—'}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <h2>Divergências</h2>
      <div class="filters">
        <label class="check">
          <input
            type="checkbox"
            checked={showResolved}
            onChange={(e) => setShowResolved(e.currentTarget.checked)}
          />{' '}
          Mostrar resolvidas
        </label>
      </div>
      {found && (
        <Table
          label="Divergências"
          head={['Encontrada em', 'Tipo', 'Valor', 'Conta', 'Pix (E2E) e txid', 'Detalhe', 'Situação', '']}
          empty={
            found.length === 0 && (showResolved ? 'Nenhuma divergência.' : 'Nenhuma divergência em aberto.')
          }
        >
          {found.map((d) => (
            <tr key={d.id}>
              <td>{date(d.foundAt)}</td>
              <td>{label(DISCREPANCY_KIND, d.kind)}</td>
              <td>{money(d.amount)}</td>
              <td>
                {d.accountId === null ? (
                  '—'
                ) : (
                  <a href={`#/contas/${d.accountId}`}>{d.accountName ?? `#${d.accountId}`}</a>
                )}
                {d.saleId !== null && <span class="muted"> · venda {d.saleId}</span>}
              </td>
              <td class="text">
                {d.e2eid}
                {d.txid && <span class="muted"> · txid {d.txid}</span>}
              </td>
              <Detail text={d.detail} />
              <td>
                {d.resolvedAt ? (
                  <>
                    Resolvida em {date(d.resolvedAt)}
                    {d.resolvedBy && ` por ${d.resolvedBy === 'cli' ? 'linha de comando' : d.resolvedBy}`}
                    {d.resolution && <span class="muted"> · {d.resolution.replace(/^operator: /, '')}</span>}
                  </>
                ) : (
                  'Em aberto'
                )}
              </td>
              <td>{!d.resolvedAt && <Resolve discrepancy={d} onDone={() => void loadFound()} />}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

/** "Resolver": an open discrepancy closed with a note of what was done (kept with it and in the audit). */
function Resolve({ discrepancy: d, onDone }: { discrepancy: Discrepancy; onDone: () => void }) {
  const [note, setNote] = useState('');
  const kind = label(DISCREPANCY_KIND, d.kind);
  return (
    <Decision
      label="Resolver"
      ariaLabel={`Resolver a divergência de ${money(d.amount)} (${kind})`}
      title="Resolver a divergência?"
      ready={note.trim() !== ''}
      waiting="Escreva o que foi feito para confirmar."
      onOpen={() => setNote('')}
      run={async () => {
        await api.resolveDiscrepancy(d.id, note.trim());
        return `Divergência de ${money(d.amount)} resolvida.`;
      }}
      onDone={onDone}
    >
      <p>
        {kind}: {money(d.amount)} {d.kind === 'missing_at_psp' ? 'creditados' : 'pagos'}. Resolver não move
        dinheiro: diga o que foi feito ({RESOLVE_HINT[d.kind] ?? 'o que foi combinado e com quem'}).
      </p>
      <label for={`resolve-note-${d.id}`}>O que foi feito</label>
      <textarea
        id={`resolve-note-${d.id}`}
        rows={3}
        maxLength={500}
        value={note}
        onInput={(e) => setNote(e.currentTarget.value)}
      />
    </Decision>
  );
}

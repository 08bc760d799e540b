import { useState } from 'preact/hooks';
import { type Anticipation, type AnticipationSimulation, api } from '../api';
import { day, money, reaisText } from '../ui/format';
import { ErrorText, useAttempt } from '../ui/kit';

/** "1234.56" (reaisText) → cents; null when it is not an amount. */
function centsOf(text: string): number | null {
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
}

/**
 * "Antecipar": the merchant types how much of the card receivables to bring forward, sees the simulation (gross,
 * fee, net, the installments taken) and only then confirms. One confirmation is one anticipation (its key).
 */
export function Anticipate({ onDone }: { onDone: () => void }) {
  const [amount, setAmount] = useState('');
  const [simulation, setSimulation] = useState<{ cents: number; quote: AnticipationSimulation } | null>(null);
  const [done, setDone] = useState<Anticipation | null>(null);
  const [key, setKey] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { error, attempt, act } = useAttempt(() => setDone(null));

  // a quote is a read: the latest asked is the one shown (an action, below, is sent once)
  const simulate = () =>
    attempt(async () => {
      setSimulation(null);
      const cents = centsOf(reaisText(amount));
      if (cents === null || cents === 0) throw new Error('Digite um valor em reais, como 150,00.');
      const quote = await api.simulateAnticipation({ amountCents: cents });
      setSimulation({ cents, quote });
      setKey(crypto.randomUUID());
    });

  const confirm = () =>
    act(async () => {
      if (!simulation || !key) return;
      setBusy(true);
      try {
        const a = await api.anticipate({ amountCents: simulation.cents }, key);
        setDone(a);
        setSimulation(null);
        setAmount('');
        setKey(null);
        onDone();
      } finally {
        setBusy(false);
      }
    });

  return (
    <section aria-labelledby="antecipar">
      <h2 id="antecipar">Antecipar</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void simulate();
        }}
      >
        <div>
          <label for="a-amount">Valor a antecipar (R$)</label>
          <input
            id="a-amount"
            inputMode="decimal"
            required
            value={amount}
            onInput={(e) => {
              setAmount((e.target as HTMLInputElement).value);
              setSimulation(null); // a simulation speaks for the amount it was made for
            }}
          />
        </div>
        <button type="submit">Simular antecipação</button>
      </form>
      <ErrorText error={error} />
      {simulation && (
        <div aria-live="polite">
          <dl class="detail" aria-label="Simulação da antecipação">
            <dt>Parcelas antecipadas</dt>
            <dd>{money(simulation.quote.grossCents)}</dd>
            <dt>Taxa de antecipação</dt>
            <dd>{money(simulation.quote.feeCents)}</dd>
            <dt>Você recebe agora</dt>
            <dd>{money(simulation.quote.netCents)}</dd>
          </dl>
          <ul class="plain" aria-label="Parcelas que serão antecipadas">
            {simulation.quote.receivables.map((r) => (
              <li key={r.date}>
                {day(r.date)}: {money(r.amountCents)}
              </li>
            ))}
          </ul>
          <button type="button" disabled={busy} onClick={() => void confirm()}>
            Confirmar antecipação
          </button>
        </div>
      )}
      {done && (
        <p role="status">
          {done.status === 'paid'
            ? `Antecipação paga: ${money(done.netCents)} no seu saldo disponível.`
            : done.status === 'requested'
              ? `Antecipação de ${money(done.netCents)} solicitada: aguarda aprovação.`
              : 'Antecipação recusada: as parcelas não estão mais disponíveis.'}
        </p>
      )}
    </section>
  );
}

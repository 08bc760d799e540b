import { useEffect, useState } from 'preact/hooks';
import { type PageData, payPath } from './api';

/**
 * The sale's event stream (no polling): `paid` with where to go next, or `expired`. A dropped connection is
 * retried by the browser itself; one it gave up on (refused, or the network gone for good) is `lost`, and
 * `retry` opens it again.
 */
export function usePaymentStream(
  page: PageData,
  saleId: string,
  on: { paid: (redirectUrl: string | null) => void; expired: () => void },
): { lost: boolean; retry: () => void } {
  const [lost, setLost] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const events = new EventSource(`${payPath(page)}/sales/${encodeURIComponent(saleId)}/events`);
    events.addEventListener('paid', (e) => {
      events.close();
      const { redirectUrl } = JSON.parse((e as MessageEvent<string>).data) as { redirectUrl: string | null };
      on.paid(redirectUrl);
    });
    events.addEventListener('expired', () => {
      events.close();
      on.expired();
    });
    events.addEventListener('open', () => setLost(false));
    events.addEventListener('error', () => setLost(events.readyState === EventSource.CLOSED));
    return () => events.close();
  }, [saleId, attempt]);
  return { lost, retry: () => setAttempt((n) => n + 1) };
}

/** While waiting: the spinner and what happens next, or the way to follow the payment again. */
export function Waiting({ lost, retry, text }: { lost: boolean; retry: () => void; text: string }) {
  return lost ? (
    <div class="waiting-lost" role="alert">
      <p>Perdemos a conexão com a loja. Se você já pagou, o pagamento não se perde.</p>
      <button type="button" class="secondary" onClick={retry}>
        Acompanhar o pagamento de novo
      </button>
    </div>
  ) : (
    <p class="waiting" role="status">
      <span class="spinner" aria-hidden="true" />
      {text}
    </p>
  );
}

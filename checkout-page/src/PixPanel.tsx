import { useEffect, useState } from 'preact/hooks';
import { type PageData, type PixPayment, payPath } from './api';
import { hour } from './money';

/**
 * The Pix to pay: its QR code and copy-and-paste code with a copy button, waiting on the sale's event stream
 * (no polling) for `paid` or `expired`.
 */
export function PixPanel(props: {
  page: PageData;
  payment: PixPayment;
  onPaid: (redirectUrl: string | null) => void;
  onNewPix: () => void;
}) {
  const { payment } = props;
  const [copied, setCopied] = useState(false);
  const [expired, setExpired] = useState(false);
  // the stream given up by the browser (refused, or the network gone for good): the payer may try again
  const [lost, setLost] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const events = new EventSource(
      `${payPath(props.page)}/sales/${encodeURIComponent(payment.saleId)}/events`,
    );
    events.addEventListener('paid', (e) => {
      events.close();
      const { redirectUrl } = JSON.parse((e as MessageEvent<string>).data) as { redirectUrl: string | null };
      props.onPaid(redirectUrl);
    });
    events.addEventListener('expired', () => {
      events.close();
      setExpired(true);
    });
    events.addEventListener('open', () => setLost(false));
    // a dropped connection is retried by the browser itself; a refused one closes the stream for good
    events.addEventListener('error', () => setLost(events.readyState === EventSource.CLOSED));
    return () => events.close();
  }, [payment.saleId, attempt]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(payment.pixCopyPaste);
    } catch {
      // no clipboard permission: select the code, so that the phone's own copy is one tap away
      const code = document.getElementById('pix-code') as HTMLTextAreaElement | null;
      code?.select();
      return;
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 3000);
  };

  if (expired) {
    return (
      <section class="card" aria-labelledby="pix-title">
        <h2 id="pix-title">Este Pix expirou</h2>
        <p>O prazo para pagar este código terminou. Se você não pagou, gere um novo Pix.</p>
        <button type="button" onClick={props.onNewPix}>
          Gerar novo Pix
        </button>
      </section>
    );
  }

  return (
    <section class="card pix" aria-labelledby="pix-title">
      <h2 id="pix-title">Pague com Pix</h2>
      <ol class="steps">
        <li>Abra o app do seu banco e escolha pagar com Pix.</li>
        <li>Leia o QR Code ou use o código copia e cola.</li>
      </ol>
      <img class="qr" src={payment.pixQrCode} alt="QR Code do Pix" width={240} height={240} />
      <label for="pix-code">Código Pix copia e cola</label>
      <textarea id="pix-code" readOnly rows={5} value={payment.pixCopyPaste} />
      <button type="button" onClick={copy}>
        {copied ? 'Código copiado' : 'Copiar código Pix'}
      </button>
      {lost ? (
        <div class="waiting-lost" role="alert">
          <p>Perdemos a conexão com a loja. Se você já pagou, o pagamento não se perde.</p>
          <button type="button" class="secondary" onClick={() => setAttempt((n) => n + 1)}>
            Acompanhar o pagamento de novo
          </button>
        </div>
      ) : (
        <p class="waiting" role="status">
          <span class="spinner" aria-hidden="true" />
          Aguardando o pagamento. Esta página muda sozinha quando ele for confirmado.
        </p>
      )}
      {payment.expiresAt && <p class="muted">Pague até as {hour(payment.expiresAt)}.</p>}
    </section>
  );
}

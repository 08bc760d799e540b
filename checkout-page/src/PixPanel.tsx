import { useState } from 'preact/hooks';
import type { PageData, PixPayment } from './api';
import { hour } from './money';
import { PixCode } from './PixCode';
import { usePaymentStream, Waiting } from './payment-stream';

/** The Pix to pay: its QR code and copy-and-paste code with a copy button, waiting for `paid` on the stream. */
export function PixPanel(props: {
  page: PageData;
  payment: PixPayment;
  onPaid: (redirectUrl: string | null) => void;
  onNewPix: () => void;
}) {
  const { payment } = props;
  const [expired, setExpired] = useState(false);
  const stream = usePaymentStream(props.page, payment.saleId, {
    paid: props.onPaid,
    expired: () => setExpired(true),
  });

  if (expired) {
    return (
      <section class="card" aria-labelledby="pix-title">
        <h2 id="pix-title">Este Pix não pode mais ser pago</h2>
        <p>
          O prazo para pagar este código terminou, ou a loja o cancelou. Se você não pagou, gere um novo Pix.
        </p>
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
      <PixCode
        id="pix-code"
        qrCode={payment.pixQrCode}
        copyPaste={payment.pixCopyPaste}
        alt="QR Code do Pix"
        size={240}
        rows={5}
      />
      <Waiting
        {...stream}
        text="Aguardando o pagamento. Esta página muda sozinha quando ele for confirmado."
      />
      {payment.expiresAt && <p class="muted">Pague até as {hour(payment.expiresAt)}.</p>}
    </section>
  );
}

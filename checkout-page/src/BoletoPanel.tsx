import { useState } from 'preact/hooks';
import type { BoletoPayment, PageData } from './api';
import { CopyButton } from './CopyButton';
import { day } from './money';
import { PixCode } from './PixCode';
import { usePaymentStream, Waiting } from './payment-stream';

/** A linha digitável of 47 digits grouped as a bank prints it; anything else as it came. */
export function lineText(line: string): string {
  const m = /^(\d{5})(\d{5})(\d{5})(\d{6})(\d{5})(\d{6})(\d)(\d{14})$/.exec(line);
  return m ? `${m[1]}.${m[2]} ${m[3]}.${m[4]} ${m[5]}.${m[6]} ${m[7]} ${m[8]}` : line;
}

/** The boleto to pay: its due date, linha digitável with a copy button and its PDF; waiting for `paid`. */
export function BoletoPanel(props: {
  page: PageData;
  payment: BoletoPayment;
  onPaid: (redirectUrl: string | null) => void;
  onNew: () => void;
}) {
  const { payment } = props;
  const [expired, setExpired] = useState(false);
  const stream = usePaymentStream(props.page, payment.saleId, {
    paid: props.onPaid,
    expired: () => setExpired(true),
  });

  if (expired) {
    return (
      <section class="card" aria-labelledby="boleto-title">
        <h2 id="boleto-title">Este boleto não pode mais ser pago</h2>
        <p>O prazo para pagar este boleto terminou, ou a loja o cancelou. Se você não pagou, gere um novo.</p>
        <button type="button" onClick={props.onNew}>
          Gerar novo boleto
        </button>
      </section>
    );
  }

  return (
    <section class="card boleto" aria-labelledby="boleto-title">
      <h2 id="boleto-title">Boleto gerado</h2>
      <p>
        Vencimento: <strong>{day(payment.dueDate)}</strong>
      </p>
      <label for="boleto-line">Linha digitável</label>
      <textarea id="boleto-line" readOnly rows={2} value={lineText(payment.digitableLine)} />
      <CopyButton
        text={payment.digitableLine}
        field="boleto-line"
        label="Copiar linha digitável"
        done="Linha copiada"
      />
      <p class="pdf">
        {/* the PDF is the gateway's, which serves this page: its path on this origin, whatever PUBLIC_URL says */}
        <a href={new URL(payment.pdfUrl, location.href).pathname} target="_blank" rel="noopener">
          Abrir o PDF do boleto
        </a>
      </p>
      {/* the boleto híbrido's Pix, here too: on a phone, paid by the bank's app at once, without the PDF */}
      <h3>Ou pague com Pix</h3>
      <PixCode
        id="boleto-pix"
        qrCode={payment.pixQrCode}
        copyPaste={payment.pixCopyPaste}
        alt="QR Code do Pix do boleto"
        size={200}
        rows={4}
      />
      <Waiting
        {...stream}
        text="Aguardando o pagamento. Um boleto pode levar até 3 dias úteis para ser confirmado; a loja é avisada."
      />
    </section>
  );
}

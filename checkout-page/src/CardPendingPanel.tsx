import { useState } from 'preact/hooks';
import type { CardPayment, PageData } from './api';
import { usePaymentStream, Waiting } from './payment-stream';

/**
 * A card payment the acquirer has not answered yet (the gateway asks it again by itself): the page waits for
 * `paid` on the stream; a payment that ends otherwise lets the payer try again.
 */
export function CardPendingPanel(props: {
  page: PageData;
  payment: CardPayment;
  onPaid: (redirectUrl: string | null) => void;
  onAgain: () => void;
}) {
  const [ended, setEnded] = useState(false);
  const stream = usePaymentStream(props.page, props.payment.saleId, {
    paid: props.onPaid,
    expired: () => setEnded(true),
  });
  return (
    <section class="card" aria-labelledby="card-title">
      {ended ? (
        <>
          <h2 id="card-title">O pagamento com cartão não foi aprovado</h2>
          <p>A operadora do cartão não confirmou o pagamento. Tente de novo ou escolha outra forma.</p>
          <button type="button" onClick={props.onAgain}>
            Tentar de novo
          </button>
        </>
      ) : (
        <>
          <h2 id="card-title">Confirmando o pagamento</h2>
          <Waiting
            {...stream}
            text="A operadora do cartão ainda não respondeu. Esta página muda sozinha quando ela responder."
          />
        </>
      )}
    </section>
  );
}

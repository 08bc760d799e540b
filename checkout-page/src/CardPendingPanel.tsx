import { useEffect, useState } from 'preact/hooks';
import type { CardPayment, PageData } from './api';
import { usePaymentStream, Waiting } from './payment-stream';

/** How often the page asks again: the stream tells `paid` at once, but a refusal only to a stream opened after it. */
const ASK_AGAIN_MS = 20_000;

/**
 * A card payment the acquirer has not answered yet (the gateway asks it again by itself): the page waits for
 * `paid` on the stream; a payment that ends otherwise (refused, failed) is `expired` to the next stream opened,
 * and lets the payer try again.
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
  useEffect(() => {
    if (ended) return;
    const timer = setInterval(stream.retry, ASK_AGAIN_MS);
    return () => clearInterval(timer);
  }, [ended]);
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

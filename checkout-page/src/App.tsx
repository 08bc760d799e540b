import { useEffect, useRef, useState } from 'preact/hooks';
import type { CardPayment, PageData, Payment } from './api';
import { BoletoPanel } from './BoletoPanel';
import { CardPendingPanel } from './CardPendingPanel';
import { BRAND_NAMES, type CardBrand } from './card';
import { money } from './money';
import { PayerForm } from './PayerForm';
import { PixPanel } from './PixPanel';
import { savedPayment, savePayment } from './saved-payment';

type Phase =
  | { at: 'form' }
  | { at: 'paying'; payment: Payment }
  | { at: 'paid'; amountCents: number; redirectUrl: string | null; how?: string };

/** Seconds before a paid page takes the payer back to the store, when the store gave an address. */
const REDIRECT_SECONDS = 5;

/** The hosted checkout: what is paid, the payer's data and method, the Pix, boleto or card, then the confirmation. */
export function App({ page }: { page: PageData }) {
  const session = page.kind === 'session' ? page.session : null;
  const [phase, setPhase] = useState<Phase>(() => {
    if (session?.status === 'paid') {
      return { at: 'paid', amountCents: session.amountCents, redirectUrl: session.redirectUrl };
    }
    const payment = savedPayment(page);
    return payment ? { at: 'paying', payment } : { at: 'form' };
  });
  const merchant = page.kind === 'link' ? page.link.merchantName : page.session.merchantName;
  const title = page.kind === 'link' ? page.link.title : 'Seu pedido';
  const fixed = page.kind === 'link' ? page.link.amountCents : page.session.amountCents;

  useEffect(() => {
    document.title =
      phase.at === 'paid' ? 'Pagamento confirmado' : merchant ? `Pagamento · ${merchant}` : 'Pagamento';
  }, [phase.at, merchant]);

  return (
    <main class="page">
      <header class="summary">
        {merchant && <p class="merchant">{merchant}</p>}
        {phase.at === 'paid' ? (
          <Confirmed amountCents={phase.amountCents} redirectUrl={phase.redirectUrl} how={phase.how} />
        ) : (
          <>
            <h1>{title}</h1>
            {page.kind === 'link' && page.link.description && <p class="muted">{page.link.description}</p>}
            {session && (
              <ul class="items">
                {session.items.map((item, i) => (
                  <li key={i}>
                    <span>
                      {item.quantity > 1 ? `${item.quantity} × ` : ''}
                      {item.title}
                    </span>
                    <span>{money(item.unitPrice * item.quantity)}</span>
                  </li>
                ))}
              </ul>
            )}
            {phase.at === 'paying' ? (
              <p class="amount">{money(phase.payment.amountCents)}</p>
            ) : (
              fixed !== null && <p class="amount">{money(fixed)}</p>
            )}
          </>
        )}
      </header>
      {phase.at === 'form' && (
        <PayerForm
          page={page}
          onPaying={(payment) => {
            savePayment(page, payment);
            setPhase({ at: 'paying', payment });
          }}
          onPaid={(payment) =>
            setPhase({
              at: 'paid',
              amountCents: payment.amountCents,
              redirectUrl: payment.redirectUrl,
              how: paidByCard(payment),
            })
          }
        />
      )}
      {phase.at === 'paying' && <Paying page={page} payment={phase.payment} setPhase={setPhase} />}
      {session?.cancelUrl && phase.at !== 'paid' && (
        <p class="back">
          <a href={session.cancelUrl}>Voltar para a loja</a>
        </p>
      )}
    </main>
  );
}

/** The Pix, the boleto or the card being confirmed, until it is paid (the confirmation) or can no longer be (a new one from the form). */
function Paying({
  page,
  payment,
  setPhase,
}: {
  page: PageData;
  payment: Payment;
  setPhase: (p: Phase) => void;
}) {
  const paid = (redirectUrl: string | null) => {
    savePayment(page, null);
    setPhase({ at: 'paid', amountCents: payment.amountCents, redirectUrl });
  };
  const again = () => {
    savePayment(page, null);
    setPhase({ at: 'form' });
  };
  if (payment.method === 'PIX') {
    return <PixPanel page={page} payment={payment} onPaid={paid} onNewPix={again} />;
  }
  if (payment.method === 'CREDIT_CARD') {
    return <CardPendingPanel page={page} payment={payment} onPaid={paid} onAgain={again} />;
  }
  return <BoletoPanel page={page} payment={payment} onPaid={paid} onNew={again} />;
}

/** "No cartão Visa final 1111, em 3 parcelas." */
function paidByCard(payment: CardPayment): string {
  const brand =
    payment.cardBrand && payment.cardBrand in BRAND_NAMES ? BRAND_NAMES[payment.cardBrand as CardBrand] : '';
  const card = `No cartão ${brand} final ${payment.cardLastFour ?? ''}`.replace(/\s+/g, ' ');
  return payment.installments > 1 ? `${card}, em ${payment.installments} parcelas.` : `${card}, à vista.`;
}

function Confirmed({
  amountCents,
  redirectUrl,
  how,
}: {
  amountCents: number;
  redirectUrl: string | null;
  how?: string | undefined;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    if (!redirectUrl) return;
    const timer = setTimeout(() => window.location.assign(redirectUrl), REDIRECT_SECONDS * 1000);
    return () => clearTimeout(timer);
  }, [redirectUrl]);
  return (
    <section class="confirmed" aria-live="polite">
      <p class="check" aria-hidden="true">
        ✓
      </p>
      <h1 tabIndex={-1} ref={heading}>
        Pagamento confirmado
      </h1>
      <p>Recebemos seu pagamento de {money(amountCents)}. Obrigado!</p>
      {how && <p>{how}</p>}
      {redirectUrl && (
        <p>
          Você volta para a loja em instantes. <a href={redirectUrl}>Voltar agora</a>
        </p>
      )}
    </section>
  );
}

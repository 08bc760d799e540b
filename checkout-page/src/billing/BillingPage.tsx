import { useRef, useState } from 'preact/hooks';
import { CopyButton } from '../CopyButton';
import {
  BRAND_NAMES,
  type CardBrand,
  type CardFieldName,
  type CardFields,
  cardNumberMask,
  cardProblemOf,
  EMPTY_CARD,
  expiryMask,
  expiryOf,
} from '../card';
import { digitsOf } from '../document';
import { Field } from '../Field';
import { day, money } from '../money';
import { type Billing, BillingError, post } from './api';

export interface BillingPageData {
  token: string;
  billing: Billing;
}

const STATUS: Record<Billing['status'], string> = {
  incomplete: 'Aguardando o primeiro pagamento',
  incomplete_expired: 'Encerrada: o primeiro pagamento não foi feito',
  trialing: 'Em período de teste',
  active: 'Ativa',
  past_due: 'Pagamento atrasado',
  unpaid: 'Sem pagamento',
  canceled: 'Cancelada',
};
const SALE_STATUS: Record<string, string> = {
  PAGO: 'Pago',
  PENDENTE: 'Aguardando pagamento',
  RECUSADO: 'Recusado',
  FALHA: 'Recusado',
  CANCELADO: 'Não pago',
  ESTORNADO: 'Estornado',
  EM_PROCESSAMENTO: 'Em processamento',
};
const EVERY: Record<Billing['interval'], [string, string]> = {
  week: ['semana', 'semanas'],
  month: ['mês', 'meses'],
  year: ['ano', 'anos'],
};

const every = (b: Billing) =>
  b.intervalCount === 1 ? `por ${EVERY[b.interval][0]}` : `a cada ${b.intervalCount} ${EVERY[b.interval][1]}`;
const date = (iso: string) => new Date(iso).toLocaleDateString('pt-BR', { timeZone: 'America/Sao_Paulo' });

/** The subscriber's own page: the plan, its state, the card on file, the charges; a new card; cancel at period end. */
export function BillingPage({ token, initial }: { token: string; initial: Billing }) {
  const [billing, setBilling] = useState(initial);
  const b = billing;
  // made without a card: the customer gives it here, and the first period is charged with it
  const cardWanted = b.paymentMethod === 'CREDIT_CARD' && !b.card && b.status === 'incomplete';
  const [changing, setChanging] = useState(cardWanted);
  const [notice, setNotice] = useState<string | null>(null);
  // a renewal behind, or a first period refused (the subscription waits for it, incomplete)
  const refused = b.sales.some((s) => s.status === 'RECUSADO' || s.status === 'FALHA');
  const behind = b.status === 'past_due' || b.status === 'unpaid' || (b.status === 'incomplete' && refused);
  // canceled and incomplete_expired are final: no new card, no cancellation, no further charge
  const ended = b.status === 'canceled' || b.status === 'incomplete_expired';
  return (
    <main class="page">
      <header class="summary">
        {b.merchantName && <p class="merchant">{b.merchantName}</p>}
        <h1>{b.planName}</h1>
        <p class="amount">
          {money(b.amountCents)} <span class="muted">{every(b)}</span>
        </p>
      </header>
      {notice && (
        <p class="card notice" role="status">
          {notice}
        </p>
      )}
      <section class="card" aria-labelledby="state">
        <h2 id="state">Situação: {STATUS[b.status]}</h2>
        {b.status === 'trialing' && <p>O teste gratuito vai até {day(b.currentPeriodEnd)}.</p>}
        {b.status !== 'trialing' && !ended && (
          <p>
            Período atual: {day(b.currentPeriodStart)} a {day(b.currentPeriodEnd)}.
          </p>
        )}
        {b.status === 'incomplete_expired' && (
          <p>
            A primeira cobrança não foi paga a tempo: esta assinatura não começou e não terá novas cobranças.
            Para assinar, peça um novo link a {b.merchantName ?? 'quem vende'}.
          </p>
        )}
        {b.nextPlan && !ended && (
          <p>
            A partir de {day(b.nextPlan.from)}, o plano passa a ser {b.nextPlan.name}:{' '}
            {money(b.nextPlan.amountCents)} {every(b)}.
          </p>
        )}
        {b.cancelAtPeriodEnd && !ended && (
          <p>A assinatura termina em {day(b.currentPeriodEnd)}: não haverá novas cobranças.</p>
        )}
        {!b.cancelAtPeriodEnd && b.nextChargeAt && !ended && (
          <p>
            {behind
              ? `Nova tentativa de cobrança: ${date(b.nextChargeAt)}.`
              : b.paymentMethod === 'CREDIT_CARD'
                ? `Próxima cobrança: ${date(b.nextChargeAt)}.`
                : `Próxima cobrança: vence em ${day(b.nextChargeDue ?? b.currentPeriodEnd)} (enviada por e-mail em ${date(b.nextChargeAt)}).`}
          </p>
        )}
        {behind && b.paymentMethod === 'CREDIT_CARD' && (
          <p class="problem">Não conseguimos cobrar no cartão. Cadastre outro cartão para continuar.</p>
        )}
        {cardWanted && !behind && (
          <p>
            Cadastre o cartão de crédito abaixo: a primeira cobrança, de {money(b.amountCents)}, é feita assim
            que ele for salvo.
          </p>
        )}
      </section>
      {b.paymentMethod === 'CREDIT_CARD' && !ended && (
        <section class="card" aria-labelledby="card-title">
          <h2 id="card-title">Cartão</h2>
          {b.card ? (
            <p>
              {BRAND_NAMES[b.card.brand as CardBrand] ?? b.card.brand} final {b.card.lastFour}, validade{' '}
              {String(b.card.expMonth).padStart(2, '0')}/{String(b.card.expYear).slice(-2)}
            </p>
          ) : (
            <p>Nenhum cartão cadastrado.</p>
          )}
          {changing ? (
            <CardForm
              token={token}
              submit={
                cardWanted || behind ? `Salvar cartão e pagar ${money(b.amountCents)}` : 'Salvar cartão'
              }
              onSaved={(next) => {
                setBilling(next);
                // the charge made with the new card: paid, refused (another card is asked), or none due
                const last = next.sales[0];
                const refused = last && last.id !== b.sales[0]?.id && last.status !== 'PAGO';
                setChanging(Boolean(refused));
                setNotice(
                  refused
                    ? 'O cartão recusou o pagamento. Confira os dados ou use outro cartão.'
                    : next.status === 'active' && b.status !== 'active'
                      ? 'Pagamento confirmado. Sua assinatura está ativa.'
                      : 'Cartão atualizado.',
                );
              }}
              onCancel={cardWanted ? null : () => setChanging(false)}
            />
          ) : (
            <button type="button" class="secondary" onClick={() => setChanging(true)}>
              {b.card ? 'Trocar o cartão' : 'Cadastrar o cartão'}
            </button>
          )}
        </section>
      )}
      <section class="card" aria-labelledby="sales-title">
        <h2 id="sales-title">Cobranças</h2>
        {b.sales.length === 0 ? (
          <p class="muted">Nenhuma cobrança ainda.</p>
        ) : (
          <ul class="items">
            {b.sales.map((s) => (
              <li key={s.id}>
                <span>
                  {s.period ? `${day(s.period.start)} a ${day(s.period.end)}` : date(s.date)} ·{' '}
                  {SALE_STATUS[s.status] ?? s.status}
                  {s.boletoPdfUrl && (
                    <>
                      {' · '}
                      <a href={s.boletoPdfUrl}>boleto (PDF)</a>
                    </>
                  )}
                </span>
                <span>{money(s.amountCents)}</span>
              </li>
            ))}
          </ul>
        )}
        {b.sales
          .filter((s) => s.pixCopyPaste)
          .map((s) => (
            <div class="pix" key={`pix-${s.id}`}>
              <h3>Pague {money(s.amountCents)} com Pix</h3>
              <p>Leia o QR Code no app do seu banco ou use o código copia e cola.</p>
              {s.pixQrCode && (
                <img class="qr" src={s.pixQrCode} alt="QR Code do Pix" width={240} height={240} />
              )}
              <div class="field">
                <label for={`pix-${s.id}`}>Pix copia e cola</label>
                <textarea id={`pix-${s.id}`} readOnly rows={3} value={s.pixCopyPaste!} />
              </div>
              <CopyButton
                text={s.pixCopyPaste!}
                field={`pix-${s.id}`}
                label="Copiar código Pix"
                done="Código copiado"
              />
            </div>
          ))}
      </section>
      {!ended && !b.cancelAtPeriodEnd && (
        <CancelSection
          token={token}
          end={b.currentPeriodEnd}
          served={b.status === 'active' || b.status === 'trialing' || b.status === 'past_due'}
          onDone={(next) => {
            setBilling(next);
            setNotice(`Cancelamento agendado para ${day(next.currentPeriodEnd)}.`);
          }}
        />
      )}
    </main>
  );
}

/** The new card's fields; saved, the page shows it (and a charge behind is tried with it at once). */
function CardForm(props: {
  token: string;
  /** The submit button's words: saving alone, or saving and paying what is due. */
  submit: string;
  onSaved: (b: Billing) => void;
  /** null: no way back (the subscription waits for this card). */
  onCancel: (() => void) | null;
}) {
  const [card, setCard] = useState<CardFields>(EMPTY_CARD);
  const [left, setLeft] = useState<Partial<Record<CardFieldName, boolean>>>({});
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const shown = (f: CardFieldName) => (left[f] ? cardProblemOf(f, card) : null);
  const field = (f: CardFieldName) => ({
    id: `card-${f}`,
    value: card[f],
    problem: shown(f),
    onBlur: () => setLeft((l) => ({ ...l, [f]: true })),
  });
  const submit = async (e: Event) => {
    e.preventDefault();
    const fields: CardFieldName[] = ['number', 'holder', 'expiry', 'cvv'];
    setLeft({ number: true, holder: true, expiry: true, cvv: true });
    if (fields.some((f) => cardProblemOf(f, card))) return;
    setBusy(true);
    setRefusal(null);
    const expiry = expiryOf(card.expiry)!;
    try {
      const saved = await post(props.token, 'card', {
        number: digitsOf(card.number),
        holderName: card.holder.trim(),
        expMonth: expiry.month,
        expYear: expiry.year,
        cvv: card.cvv,
      });
      // the form may stay (the card refused the charge behind: another card is asked), ready and empty
      setBusy(false);
      setCard(EMPTY_CARD);
      setLeft({});
      props.onSaved(saved);
    } catch (err) {
      setRefusal(err instanceof BillingError ? err.message : 'Algo deu errado. Tente de novo.');
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <Field
        {...field('number')}
        label="Número do cartão"
        inputMode="numeric"
        autoComplete="cc-number"
        onInput={(v) => setCard((c) => ({ ...c, number: cardNumberMask(v) }))}
      />
      <Field
        {...field('holder')}
        label="Nome impresso no cartão"
        autoComplete="cc-name"
        maxLength={100}
        onInput={(v) => setCard((c) => ({ ...c, holder: v.toUpperCase() }))}
      />
      <div class="pair">
        <Field
          {...field('expiry')}
          label="Validade (MM/AA)"
          inputMode="numeric"
          autoComplete="cc-exp"
          onInput={(v) => setCard((c) => ({ ...c, expiry: expiryMask(v) }))}
        />
        <Field
          {...field('cvv')}
          label="Código de segurança (CVV)"
          inputMode="numeric"
          autoComplete="cc-csc"
          maxLength={4}
          onInput={(v) => setCard((c) => ({ ...c, cvv: digitsOf(v).slice(0, 4) }))}
        />
      </div>
      {refusal && (
        <p class="problem" role="alert">
          {refusal}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Salvando…' : props.submit}
      </button>{' '}
      {props.onCancel && (
        <button type="button" class="secondary" onClick={props.onCancel} disabled={busy}>
          Voltar
        </button>
      )}
    </form>
  );
}

function CancelSection(props: {
  token: string;
  end: string;
  /** Whether the subscription is running (a period paid, or its trial): it goes on until the period ends. */
  served: boolean;
  onDone: (b: Billing) => void;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  const [problem, setProblem] = useState<string | null>(null);
  // one request at a time: a second click while the first is on its way sends nothing
  const confirm = async () => {
    if (sending.current) return;
    sending.current = true;
    setBusy(true);
    setProblem(null);
    try {
      props.onDone(await post(props.token, 'cancel', {}));
    } catch (err) {
      setProblem(err instanceof BillingError ? err.message : 'Algo deu errado. Tente de novo.');
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="cancel-title">
      <h2 id="cancel-title">Cancelar a assinatura</h2>
      <p>
        {props.served
          ? `A assinatura continua até ${day(props.end)} e não é cobrada de novo.`
          : `Nenhuma nova cobrança é feita, e a assinatura termina em ${day(props.end)}.`}
      </p>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {asking ? (
        <>
          <button type="button" onClick={confirm} disabled={busy}>
            {busy ? 'Cancelando…' : 'Confirmar o cancelamento'}
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setAsking(false)} disabled={busy}>
            Manter a assinatura
          </button>
        </>
      ) : (
        <button type="button" class="secondary" onClick={() => setAsking(true)}>
          Cancelar no fim do período
        </button>
      )}
    </section>
  );
}

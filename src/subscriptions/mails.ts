import { accountName } from '../accounts/index.js';
import { BRAND_NAMES, type CardBrand } from '../cards/index.js';
import { type MailOutbox, queueMail, renderMail } from '../mail/index.js';
import { formatLine } from '../payment-standards/index.js';
import { unseal } from '../platform/crypto/sealed.js';
import type { Queryable } from '../platform/db/db.js';
import { formatBrl } from '../platform/money/money.js';
import { greeting, nameForMail } from '../platform/text/names.js';
import type { SaleRow } from '../sales/index.js';
import type { PlanRow, SubscriptionRow } from './data.js';
import { brDate, localDateOf } from './periods.js';

/** What an e-mail reads of a subscription's customer and plan (the subscriptions' `Subscriber`). */
interface Subscriber {
  customer: { name: string; email: string };
  plan: PlanRow;
}
/** What a failure's e-mail reads of the subscription after it. */
type SubscriptionView = { status: SubscriptionRow['status']; nextChargeAt: string | null };

/** Where the customer's e-mails go: the mail outbox, the page links' origin, and whether the sandbox is on. */
export type SubscriptionMail = MailOutbox & { key: Buffer; publicUrl: string; testMode?: boolean };
type Outbox = SubscriptionMail;

/** Said in every subscription e-mail while the sandbox is on (its subject says "[Teste]" too). */
const TEST_MODE_NOTE = 'Modo de teste: esta assinatura é de teste e nenhuma cobrança dela é real.';
const withTestNote = (mail: Outbox, paragraphs: string[]) =>
  mail.testMode ? [...paragraphs, TEST_MODE_NOTE] : paragraphs;

const billingUrl = (mail: Outbox, sub: SubscriptionRow) =>
  `${mail.publicUrl}/billing/${unseal(mail.key, sub.billing_token_sealed)}`;
/**
 * "a assinatura Plano Ouro", or "a sua assinatura" for a plan name an e-mail may not print (one stored before
 * names were checked that a mail client could make a link of).
 */
const subscriptionOf = (who: Subscriber) => {
  const plan = nameForMail(who.plan.name, '');
  return plan ? `a assinatura ${plan}` : 'a sua assinatura';
};
const subjectOf = (who: Subscriber, what: string) => {
  const plan = nameForMail(who.plan.name, '');
  return plan ? `${plan}: ${what}` : `Sua assinatura: ${what}`;
};
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A PIX or boleto period's charge, to the customer: what to pay, and their page. Once per sale. */
export async function mailCharge(
  tx: Queryable,
  mail: Outbox,
  sub: SubscriptionRow,
  who: Subscriber,
  sale: SaleRow,
  period: { start: string; end: string },
  dueDate: string,
): Promise<void> {
  const amount = formatBrl(Number(sale.amount));
  const boleto = sale.boleto as { digitableLine: string; pdfUrl: string; dueDate: string } | null;
  await queueMail(tx, mail, {
    cause: `subscription-charge:${sale.uuid}`,
    to: who.customer.email,
    ...renderMail({
      subject: subjectOf(who, `cobrança de ${amount}`),
      paragraphs: withTestNote(mail, [
        greeting(who.customer.name),
        `${capital(subscriptionOf(who))} tem uma cobrança de ${amount} pelo período de ${brDate(period.start)} a ${brDate(period.end)}.`,
        boleto
          ? `Boleto com vencimento em ${brDate(boleto.dueDate)}. Linha digitável: ${formatLine(boleto.digitableLine)}.`
          : `Pix com vencimento em ${brDate(dueDate)}. Pague com o Pix copia e cola ou pelo QR Code na página da assinatura: ${sale.pix_key}`,
      ]),
      ...(boleto ? { links: [{ label: 'Boleto em PDF', url: boleto.pdfUrl }] } : {}),
      action: { label: 'Ver minha assinatura', url: billingUrl(mail, sub) },
      footnote: 'Você recebe este e-mail porque tem uma assinatura.',
    }),
  });
}

/**
 * A failed try, to the customer: a card to change, or a charge left unpaid; with their page. A try whose sale
 * could not be made at all (`sold` false: no card on file, the customer's data refused, a split naming a
 * recipient since deactivated) says only that the charge was not made: no card refused it.
 */
export async function mailFailure(
  tx: Queryable,
  mail: Outbox,
  sub: SubscriptionRow,
  who: Subscriber,
  view: SubscriptionView,
  attempt: number,
  sold: boolean,
): Promise<void> {
  const amount = formatBrl(who.plan.amount_cents);
  const next = view.nextChargeAt
    ? `Tentaremos de novo em ${new Date(view.nextChargeAt).toLocaleDateString('pt-BR', { timeZone: 'America/Sao_Paulo' })}.`
    : view.status === 'canceled'
      ? 'A assinatura foi cancelada por falta de pagamento.'
      : view.status === 'incomplete_expired'
        ? 'Não faremos novas tentativas: a primeira cobrança não foi paga a tempo e a assinatura não começou. Para assinar, faça uma nova assinatura.'
        : 'Não faremos novas tentativas: atualize a forma de pagamento para reativar a assinatura.';
  await queueMail(tx, mail, {
    cause: `subscription-failed:${sub.uuid}:${sub.period_index}:${attempt}`,
    to: who.customer.email,
    ...renderMail({
      subject: subjectOf(who, `não conseguimos cobrar ${amount}`),
      paragraphs: withTestNote(mail, [
        greeting(who.customer.name),
        !sold
          ? `Não conseguimos fazer a cobrança de ${amount} d${subscriptionOf(who)}.`
          : sub.payment_method === 'CREDIT_CARD'
            ? `O cartão d${subscriptionOf(who)} recusou a cobrança de ${amount}.`
            : `A cobrança de ${amount} d${subscriptionOf(who)} não foi paga.`,
        next,
      ]),
      action: {
        label:
          sold &&
          sub.payment_method === 'CREDIT_CARD' &&
          view.status !== 'incomplete_expired' &&
          view.status !== 'canceled'
            ? 'Trocar o cartão'
            : 'Ver minha assinatura',
        url: billingUrl(mail, sub),
      },
      footnote: 'Você recebe este e-mail porque tem uma assinatura.',
    }),
  });
}

/** How a mandate subscription's first period is charged (`MandateCharges.firstPeriodWay`), and when it is due. */
export interface MandateFirstPeriod {
  way: 'paid' | 'mandate' | 'due-date';
  dueDate: string;
}

/**
 * A subscription that charges by itself (a saved card, or a Pix Automático mandate), to the customer when it is
 * made: what it costs, how and when it is charged, and their page, where they change the card or cancel. The
 * other subscriptions' first e-mail already links that page (a charge's, or the card wanted). Once per
 * subscription.
 */
export async function mailStarted(
  tx: Queryable,
  mail: Outbox,
  sub: SubscriptionRow,
  who: Subscriber,
  how: { card: { brand: CardBrand; lastFour: string } } | { mandate: MandateFirstPeriod },
): Promise<void> {
  const amount = formatBrl(who.plan.amount_cents);
  const merchant = nameForMail((await accountName(tx, sub.account_id)) ?? '', '');
  const card = 'card' in how ? how.card : null;
  const means = card
    ? `no cartão ${BRAND_NAMES[card.brand] ?? card.brand} final ${card.lastFour}`
    : 'pelo Pix Automático que você autorizou no seu banco';
  const today = localDateOf(new Date());
  const mandate = 'mandate' in how ? how.mandate : null;
  const first =
    mandate?.way === 'paid'
      ? 'O primeiro período já está pago: foi o pagamento que você fez ao autorizar o Pix Automático.'
      : sub.status === 'trialing' && sub.trial_end
        ? `O teste grátis vai até ${brDate(sub.trial_end)}: a primeira cobrança é feita no fim do teste.`
        : mandate?.way === 'due-date'
          ? `A primeira cobrança, perto demais para o Pix Automático, é um Pix com vencimento em ${brDate(mandate.dueDate)}, que enviamos por e-mail; as seguintes são pelo Pix Automático.`
          : sub.current_period_start > today
            ? `A primeira cobrança é feita em ${brDate(sub.current_period_start)}.`
            : 'A primeira cobrança é feita hoje.';
  await queueMail(tx, mail, {
    cause: `subscription-started:${sub.uuid}`,
    to: who.customer.email,
    ...renderMail({
      subject: subjectOf(who, 'assinatura criada'),
      paragraphs: withTestNote(mail, [
        greeting(who.customer.name),
        `${capital(subscriptionOf(who))}${merchant ? ` de ${merchant}` : ''} (${amount} por período) foi criada para você, com as cobranças ${means}.`,
        first,
        card
          ? 'Na página da assinatura você vê as cobranças, troca o cartão e pode cancelar.'
          : 'Na página da assinatura você vê as cobranças e pode cancelar.',
      ]),
      action: { label: 'Ver minha assinatura', url: billingUrl(mail, sub) },
      footnote: 'Você recebe este e-mail porque uma assinatura foi criada para você.',
    }),
  });
}

/**
 * A card subscription made without a card, to the customer: their page, where they give the card and the first
 * period is charged (at once; at the trial's end when the plan has one). Once per subscription.
 */
export async function mailCardWanted(
  tx: Queryable,
  mail: Outbox,
  sub: SubscriptionRow,
  who: Subscriber,
): Promise<void> {
  const amount = formatBrl(who.plan.amount_cents);
  const merchant = nameForMail((await accountName(tx, sub.account_id)) ?? '', '');
  await queueMail(tx, mail, {
    cause: `subscription-card-wanted:${sub.uuid}`,
    to: who.customer.email,
    ...renderMail({
      subject: subjectOf(who, 'cadastre o cartão para começar'),
      paragraphs: withTestNote(mail, [
        greeting(who.customer.name),
        `${capital(subscriptionOf(who))}${merchant ? ` de ${merchant}` : ''} (${amount} por período) foi criada para você e espera o seu cartão de crédito.`,
        sub.status === 'trialing' && sub.trial_end
          ? `O teste grátis vai até ${brDate(sub.trial_end)}: a primeira cobrança é feita no fim do teste, no cartão que você cadastrar.`
          : 'A primeira cobrança é feita assim que você cadastrar o cartão. Sem o cartão em 23 horas, a assinatura é encerrada.',
      ]),
      action: { label: 'Cadastrar o cartão', url: billingUrl(mail, sub) },
      footnote: 'Você recebe este e-mail porque uma assinatura foi criada para você.',
    }),
  });
}

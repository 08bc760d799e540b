import { payerToken, savePayerToken } from './saved-payment';
import { tooManyText } from './wait';

/** What the server put in the page (src/checkout/page-html.ts): the public GET's answer. */
export interface PublicLink {
  title: string;
  description: string | null;
  amountCents: number | null;
  minCents: number | null;
  maxCents: number | null;
  methods: string[];
  maxInstallments: number | null;
  expiresAt: string | null;
  merchantName: string;
}

export interface SessionItem {
  title: string;
  unitPrice: number;
  quantity: number;
}

export interface PublicSession {
  id: string;
  status: 'open' | 'paid';
  amountCents: number;
  items: SessionItem[];
  methods: string[];
  expiresAt: string;
  merchantName: string;
  cancelUrl: string | null;
  redirectUrl: string | null;
}

export type PageData =
  | { kind: 'link'; slug: string; link: PublicLink }
  | { kind: 'session'; session: PublicSession };

export interface PixPayment {
  saleId: string;
  amountCents: number;
  pixCopyPaste: string;
  pixQrCode: string;
  expiresAt: string | null;
  /** Kept by this browser and sent back: only this payer is shown this charge again. */
  payerToken: string;
}

export interface BoletoPayment {
  saleId: string;
  amountCents: number;
  digitableLine: string;
  pdfUrl: string;
  dueDate: string;
  pixCopyPaste: string;
  pixQrCode: string;
}

/** A card charge's outcome (src/checkout/card-pay.ts): PAGO, RECUSADO with its code, or PENDENTE. */
export interface CardPayment {
  saleId: string;
  status: string;
  amountCents: number;
  installments: number;
  cardBrand: string | null;
  cardLastFour: string | null;
  refusalCode: string | null;
  redirectUrl: string | null;
}

/** A payment started on this page: the Pix to pay, the boleto, or a card whose answer is awaited. */
export type Payment =
  | ({ method: 'PIX' } & PixPayment)
  | ({ method: 'BOLETO' } & BoletoPayment)
  | ({ method: 'CREDIT_CARD' } & CardPayment);

export interface InstallmentOption {
  installments: number;
  installmentCents: number;
  firstInstallmentCents: number;
  totalCents: number;
}

export interface PayerAddress {
  street: string;
  number: string;
  district: string;
  city: string;
  state: string;
  zipCode: string;
}

export function pageData(): PageData {
  return JSON.parse(document.getElementById('app')!.dataset.page!) as PageData;
}

/** Where this page's payer routes are: its link's or its session's. */
export const payPath = (page: PageData): string =>
  page.kind === 'link'
    ? `/api/public/pay/${encodeURIComponent(page.slug)}`
    : `/api/public/checkout/${encodeURIComponent(page.session.id)}`;

/** The server's refusals, as the payer reads them. */
const REFUSALS: Record<number, string> = {
  400: 'Confira seus dados e tente de novo.',
  403: 'Este pagamento foi recusado pela loja. Use outro meio de pagamento ou fale com a loja.',
  404: 'Esta página de pagamento não existe mais.',
  410: 'Esta página não aceita mais pagamentos.',
};

/** A refusal as the payer reads it: a 429 with the wait its Retry-After gives. */
const refusal = (res: Response, otherwise: string): string =>
  res.status === 429 ? tooManyText(res.headers.get('retry-after')) : (REFUSALS[res.status] ?? otherwise);

/**
 * A link whose last uses are held by payments still under way (a Pix or boleto not yet paid, an authorization):
 * 410 as a link used up, but a use comes back if one of them lapses, so the form stays for a later try.
 */
const HELD =
  'Este link está reservado por outro pagamento em andamento. Se ele não for concluído, o link volta a aceitar pagamentos: tente de novo mais tarde.';

/** The refusal of a payer's request as a PayError: a 410 closes the form, unless its uses are only held. */
async function refusalError(res: Response, otherwise: string): Promise<PayError> {
  if (res.status === 410) {
    const body = (await res.json().catch(() => null)) as { message?: unknown } | null;
    if (typeof body?.message === 'string' && /in progress/.test(body.message)) return new PayError(HELD);
  }
  return new PayError(refusal(res, otherwise), res.status === 410);
}

export class PayError extends Error {
  constructor(
    message: string,
    /** The page no longer takes payments (410): its form is closed, not offered again. */
    readonly gone = false,
  ) {
    super(message);
  }
}

/** Starts the payment: the Pix's QR code and copy-and-paste code, or the boleto's line and PDF. */
export async function pay(
  page: PageData,
  method: 'PIX' | 'BOLETO',
  payer: { name: string; email: string; document: string; amountCents?: number; address?: PayerAddress },
): Promise<Payment> {
  let res: Response;
  const token = method === 'PIX' ? payerToken(page) : undefined;
  try {
    res = await fetch(method === 'PIX' ? payPath(page) : `${payPath(page)}/boleto`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(token ? { ...payer, payerToken: token } : payer),
    });
  } catch {
    throw new PayError('Sem conexão. Confira sua internet e tente de novo.');
  }
  if (res.status === 201) {
    const payment = { method, ...(await res.json()) } as Payment;
    if (payment.method === 'PIX') savePayerToken(page, payment.payerToken);
    return payment;
  }
  throw await refusalError(
    res,
    `Não foi possível gerar ${method === 'PIX' ? 'o Pix' : 'o boleto'} agora. Tente de novo em instantes.`,
  );
}

/** The same-origin JSON POST of the payer's routes: 201's body, or a PayError in Portuguese. */
async function post<T>(url: string, body: unknown, otherwise: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new PayError('Sem conexão. Confira sua internet e tente de novo.');
  }
  if (res.status === 201) return (await res.json()) as T;
  throw await refusalError(res, otherwise);
}

/** The installments the payer may choose for this page's amount (an open link's: the amount typed). */
export async function installmentsOf(page: PageData, amountCents?: number): Promise<InstallmentOption[]> {
  const query = amountCents === undefined ? '' : `?amountCents=${amountCents}`;
  const res = await fetch(`${payPath(page)}/installments${query}`);
  if (res.status !== 200) throw await refusalError(res, 'Não foi possível ver as parcelas.');
  return ((await res.json()) as { options: InstallmentOption[] }).options;
}

/**
 * Pays by card: the card goes to this page's tokenizing route (the gateway hands it to the acquirer and keeps
 * only the token), then the token is charged. A refusal is a CardPayment with status RECUSADO.
 */
export async function payByCard(
  page: PageData,
  card: { number: string; holderName: string; expMonth: number; expYear: number; cvv: string },
  payer: { name: string; email: string; document: string; amountCents?: number },
  installments: number,
): Promise<CardPayment> {
  const unavailable = 'Não foi possível pagar com cartão agora. Tente de novo em instantes.';
  const { token } = await post<{ token: string }>(`${payPath(page)}/card-token`, card, unavailable);
  return post<CardPayment>(`${payPath(page)}/card`, { ...payer, token, installments }, unavailable);
}

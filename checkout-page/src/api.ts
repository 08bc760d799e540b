/** What the server put in the page (src/checkout/page-html.ts): the public GET's answer. */
export interface PublicLink {
  title: string;
  description: string | null;
  amountCents: number | null;
  minCents: number | null;
  maxCents: number | null;
  methods: string[];
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

/** A payment started on this page: the Pix to pay, or the boleto. */
export type Payment = ({ method: 'PIX' } & PixPayment) | ({ method: 'BOLETO' } & BoletoPayment);

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
  404: 'Esta página de pagamento não existe mais.',
  410: 'Esta página não aceita mais pagamentos.',
  429: 'Muitas tentativas seguidas. Espere um minuto e tente de novo.',
};

export class PayError extends Error {}

/** Starts the payment: the Pix's QR code and copy-and-paste code, or the boleto's line and PDF. */
export async function pay(
  page: PageData,
  method: Payment['method'],
  payer: { name: string; email: string; document: string; amountCents?: number; address?: PayerAddress },
): Promise<Payment> {
  let res: Response;
  try {
    res = await fetch(method === 'PIX' ? payPath(page) : `${payPath(page)}/boleto`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payer),
    });
  } catch {
    throw new PayError('Sem conexão. Confira sua internet e tente de novo.');
  }
  if (res.status === 201) return { method, ...(await res.json()) } as Payment;
  throw new PayError(
    REFUSALS[res.status] ??
      `Não foi possível gerar ${method === 'PIX' ? 'o Pix' : 'o boleto'} agora. Tente de novo em instantes.`,
  );
}

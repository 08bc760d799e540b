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

/** Starts the Pix payment: the charge's QR code and copy-and-paste code. */
export async function payByPix(
  page: PageData,
  payer: { name: string; email: string; document: string; amountCents?: number },
): Promise<PixPayment> {
  let res: Response;
  try {
    res = await fetch(payPath(page), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payer),
    });
  } catch {
    throw new PayError('Sem conexão. Confira sua internet e tente de novo.');
  }
  if (res.status === 201) return (await res.json()) as PixPayment;
  throw new PayError(
    REFUSALS[res.status] ?? 'Não foi possível gerar o Pix agora. Tente de novo em instantes.',
  );
}

/** What the server put in the page and answers (src/subscriptions/customer-page.ts). */
export interface Billing {
  merchantName: string;
  planName: string;
  amountCents: number;
  interval: 'week' | 'month' | 'year';
  intervalCount: number;
  status: 'trialing' | 'active' | 'past_due' | 'unpaid' | 'canceled';
  paymentMethod: 'CREDIT_CARD' | 'PIX' | 'BOLETO';
  currentPeriodStart: string;
  currentPeriodEnd: string;
  nextChargeAt: string | null;
  cancelAtPeriodEnd: boolean;
  card: { brand: string; lastFour: string; expMonth: number; expYear: number } | null;
  sales: {
    id: string;
    status: string;
    amountCents: number;
    date: string;
    pixCopyPaste: string | null;
    boletoPdfUrl: string | null;
  }[];
}

const REFUSALS: Record<number, string> = {
  400: 'Confira os dados do cartão e tente de novo.',
  404: 'Esta página não existe mais.',
  409: 'Esta assinatura foi cancelada.',
  429: 'Muitas tentativas seguidas. Espere um minuto e tente de novo.',
};

export class BillingError extends Error {}

/** A same-origin POST of this page's routes: the subscription after it, or a BillingError in Portuguese. */
export async function post(token: string, action: 'card' | 'cancel', body: unknown): Promise<Billing> {
  let res: Response;
  try {
    res = await fetch(`/api/public/billing/${encodeURIComponent(token)}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new BillingError('Sem conexão. Confira sua internet e tente de novo.');
  }
  if (res.status === 200) return (await res.json()) as Billing;
  throw new BillingError(REFUSALS[res.status] ?? 'Não foi possível agora. Tente de novo em instantes.');
}

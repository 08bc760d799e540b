import type { Static } from 'typebox';
import type { BillingPage } from '../../../src/subscriptions/schemas';

/** What the server put in the page and answers: the schema of its routes. */
export type Billing = Static<typeof BillingPage>;

const REFUSALS: Record<number, string> = {
  400: 'Confira os dados do cartão e tente de novo.',
  403: 'A loja não está recebendo pagamentos no momento. Tente de novo mais tarde.',
  404: 'Esta página não existe mais.',
  409: 'Esta assinatura foi encerrada.',
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
  if (res.status === 429) throw new BillingError(waitText(Number(res.headers.get('retry-after'))));
  throw new BillingError(REFUSALS[res.status] ?? 'Não foi possível agora. Tente de novo em instantes.');
}

/** A 429 in words, with the wait its Retry-After gives (a card tried too often this hour waits up to an hour). */
function waitText(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 60) return REFUSALS[429]!;
  const minutes = Math.ceil(seconds / 60);
  return `Muitas tentativas seguidas. Espere ${minutes} minutos e tente de novo.`;
}

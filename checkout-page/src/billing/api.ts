import type { Static } from 'typebox';
import type { BillingPage } from '../../../src/subscriptions/schemas';
import { tooManyText } from '../wait';

/** What the server put in the page and answers: the schema of its routes. */
export type Billing = Static<typeof BillingPage>;

const REFUSALS: Record<number, string> = {
  400: 'Confira os dados do cartão e tente de novo.',
  403: 'A loja não está recebendo pagamentos no momento. Tente de novo mais tarde.',
  404: 'Esta página não existe mais.',
  409: 'Esta assinatura foi encerrada.',
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
  if (res.status === 429) throw new BillingError(tooManyText(res.headers.get('retry-after')));
  throw new BillingError(REFUSALS[res.status] ?? 'Não foi possível agora. Tente de novo em instantes.');
}

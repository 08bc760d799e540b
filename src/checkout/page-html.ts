import { noticePage, withPageData } from '../platform/html/page-fill.js';
import type { GoneReason } from './errors.js';

/** What the page's script finds in `#app[data-page]`: which page, and the data its public GET would answer. */
export type PageData = { kind: 'link'; slug: string; link: unknown } | { kind: 'session'; session: unknown };

/** Said on every payer page while the gateway's sandbox is on: nothing paid there is real money. */
export const TEST_MODE_BANNER =
  '<aside class="test-mode" aria-label="Modo de teste"><strong>Modo de teste.</strong> Nenhum pagamento feito nesta página é real: ' +
  'não pague com dinheiro de verdade.</aside>';

/** The page's markup with its data in an attribute: no inline script, which the CSP forbids. */
export function pageHtml(template: string, data: PageData, testMode = false): string {
  return withPageData(template, data, testMode ? TEST_MODE_BANNER : '');
}

/** Why there is nothing to pay, as the payer reads it. */
export type Unpayable = { kind: 'link' | 'session'; why: 'not_found' | GoneReason };

const MESSAGES: Record<string, { title: string; text: string }> = {
  'link:not_found': {
    title: 'Link de pagamento não encontrado',
    text: 'Confira se o endereço está completo, como a loja enviou. Se o problema continuar, fale com a loja.',
  },
  'link:expired': {
    title: 'Este link de pagamento expirou',
    text: 'Ele não aceita mais pagamentos. Peça um novo link à loja.',
  },
  'link:used_up': {
    title: 'Este link de pagamento já foi usado',
    text: 'Ele chegou ao limite de pagamentos e não aceita mais nenhum. Fale com a loja.',
  },
  'link:turned_off': {
    title: 'Este link de pagamento foi desativado',
    text: 'A loja não aceita mais pagamentos por ele. Fale com a loja.',
  },
  'link:unavailable': {
    title: 'Este link de pagamento não está aceitando pagamentos agora',
    text: 'Nada foi cobrado. Fale com a loja antes de tentar de novo.',
  },
  'session:not_found': {
    title: 'Página de pagamento não encontrada',
    text: 'Confira se o endereço está completo ou volte à loja para fazer o pedido de novo.',
  },
  'session:expired': {
    title: 'Esta página de pagamento expirou',
    text: 'O tempo para pagar terminou. Volte à loja para fazer o pedido de novo.',
  },
  'session:turned_off': {
    title: 'Esta loja não está aceitando pagamentos agora',
    text: 'Nada foi cobrado. Fale com a loja antes de tentar de novo.',
  },
  'session:unavailable': {
    title: 'Esta página de pagamento não está aceitando pagamentos agora',
    text: 'Nada foi cobrado. Fale com a loja antes de tentar de novo.',
  },
};

/** The pt-BR page saying why there is nothing to pay: the same stylesheet, no script. */
export function unpayableHtml(template: string, { kind, why }: Unpayable, testMode = false): string {
  const message = MESSAGES[`${kind}:${why}`] ?? MESSAGES[`${kind}:expired`]!;
  return noticePage(template, message, testMode ? TEST_MODE_BANNER : '');
}

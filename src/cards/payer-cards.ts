import type { Logger } from 'pino';
import type { Customer, SaleItem, SaleRow } from '../sales/index.js';
import type { CardInput } from './card-checks.js';
import type { CardSaleContext, CardSales } from './card-sales.js';
import { mapCardErrors } from './http.js';
import type { CardTokens, IssuedCardToken } from './tokens.js';

/** A credit card sale a payer's page asks for: the token the page made, the installments the payer chose. */
export interface PayerCardCharge {
  amount: number;
  token: string;
  installments: number;
  customer: Customer;
  items: Omit<SaleItem, 'id'>[];
  metadata: Record<string, string>;
  /** The link's or session's split, carried by its sale. */
  split?: unknown;
}

/**
 * What the hosted pages (the checkout module) use of cards: tokenizing for an account and charging a token,
 * through the same CardTokens and CardSales as POST /api/cards/tokens and POST /api/transactions, refusals in the
 * routes' shapes. Always captured, always CREDIT_CARD.
 */
export function payerCards(tokens: CardTokens, sales: CardSales) {
  return {
    tokenize: (accountId: number, card: CardInput, ip: string): Promise<IssuedCardToken> =>
      mapCardErrors(() => tokens.issue(accountId, card, { ip })),
    charge: async (
      accountId: number,
      charge: PayerCardCharge,
      context: CardSaleContext,
      log: Logger,
    ): Promise<SaleRow> => {
      const opened = await mapCardErrors(() =>
        sales.open(
          accountId,
          {
            amount: charge.amount,
            paymentMethod: 'CREDIT_CARD',
            card: { token: charge.token },
            installments: charge.installments,
            capture: true,
            customer: charge.customer,
            items: charge.items,
            metadata: charge.metadata,
            ...(charge.split ? { split: charge.split } : {}),
          },
          null,
          log,
          context,
        ),
      );
      return opened.sale;
    },
  };
}

import { PspError } from '../payment-standards/index.js';
import type { Queryable } from '../platform/db/db.js';
import { AppError, validation } from '../platform/errors/app-error.js';
import type { SaleOrigin } from '../sales/index.js';
import { addressProblem } from '../webhooks/index.js';
import { BoletoInputError } from './errors.js';
import type { BoletoIssuer, BoletoSaleInput } from './issue.js';

/** The boletos module's errors in the routes' shapes: a refused request is 400, a PSP failure 502. */
export async function mapBoletoErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof BoletoInputError) throw validation(err.message);
    if (err instanceof PspError) {
      throw new AppError(
        'PROCESSOR_ERROR',
        `The payment processor failed to open the cobv: ${err.message.slice(0, 200)}`,
      );
    }
    throw err;
  }
}

/** The sales route's BOLETO issuer (sales/routes.ts `BoletoSales`): the issuer with its errors mapped. */
export function boletoSales(issuer: BoletoIssuer, allowPrivateTargets: boolean) {
  return {
    open: (
      accountId: number,
      body: unknown,
      bind: (tx: Queryable, saleId: number) => Promise<void>,
      origin?: SaleOrigin,
    ) =>
      mapBoletoErrors(() =>
        issuer.issue(accountId, body as BoletoSaleInput, {
          bind,
          origin,
          checkPostback: async (url) => {
            if (allowPrivateTargets) return;
            const problem = await addressProblem(url, 'postbackUrl');
            if (problem) throw validation(problem);
          },
        }),
      ),
  };
}

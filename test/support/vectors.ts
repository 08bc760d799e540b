import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The spec's worked examples: shared/spec/vectors.json beside the checkout, or in the workplace's shared
 * folder (where test/webhooks/verify.test.ts reads them) for a clone made anywhere else.
 */
const beside = path.resolve(import.meta.dirname, '../../../shared/spec/vectors.json');
export const vectors = JSON.parse(
  readFileSync(existsSync(beside) ? beside : '/work/shared/spec/vectors.json', 'utf8'),
) as {
  cashoutFees: {
    amount: string;
    feeFixed: string;
    feePercent: string;
    expected: { fees: { fixed: string; variable: string; total: string }; netAmount: string };
  }[];
  pixKeys: { valid: Record<string, string[]>; invalid: Record<string, string[]> };
  cashoutAmounts: {
    valid: unknown[];
    below_minimum_422: unknown[];
    above_maximum_422: unknown[];
    invalid_400: unknown[];
  };
};

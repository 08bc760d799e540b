import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The contract's worked examples (test/fixtures/vectors.json, a copy of the spec's vectors.json). */
export const vectors = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../fixtures/vectors.json'), 'utf8'),
) as {
  withdrawalFees: {
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

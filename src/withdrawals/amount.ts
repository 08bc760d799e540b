/**
 * Cashout amounts: reais as decimal text (the JSON number's literal text, or a string holding a plain
 * decimal) → integer cents, without ever going through a float. decisions.md, Money and statuses.
 */
export type AmountParse = { ok: true; cents: number } | { ok: false; reason: string };

const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/** Anything above this is "above the maximum" whatever its exact value; keeps the arithmetic bounded. */
const CAP = BigInt(Number.MAX_SAFE_INTEGER);

/** `literal` is the number's text as sent when `value` is a JSON number; ignored otherwise. */
export function parseWithdrawalAmount(value: unknown, literal: string | undefined): AmountParse {
  if (typeof value === 'number') {
    const m = literal ? NUMBER_LITERAL.exec(literal) : null;
    if (!m) return { ok: false, reason: 'amount must be a valid number' };
    return toCents(m[1] === '-', m[2]!, m[3] ?? '', Number(m[4] ?? '0'));
  }
  if (typeof value === 'string') {
    const m = PLAIN_DECIMAL.exec(value);
    if (!m) return { ok: false, reason: 'amount must be a valid number greater than zero' };
    // Text is read as written: "100.100" is a hundred thousand and a hundred in Brazilian notation.
    if ((m[2] ?? '').length > 2) return { ok: false, reason: 'amount must have at most two decimal places' };
    return toCents(false, m[1]!, m[2] ?? '', 0);
  }
  return { ok: false, reason: 'amount must be a number' };
}

function toCents(negative: boolean, whole: string, fraction: string, exponent: number): AmountParse {
  // value = digits × 10^(exponent − fraction.length); cents = value × 100
  let digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  let scale = exponent - fraction.length + 2;
  while (scale < 0 && digits.endsWith('0') && digits.length > 1) {
    digits = digits.slice(0, -1);
    scale++;
  }
  if (/^0+$/.test(digits)) return { ok: false, reason: 'amount must be greater than zero' };
  if (negative) return { ok: false, reason: 'amount must be greater than zero' };
  if (scale < 0) return { ok: false, reason: 'amount must have at most two decimal places' };
  if (digits.length + scale > 20) return { ok: true, cents: Number(CAP) };
  const cents = BigInt(digits) * 10n ** BigInt(scale);
  return { ok: true, cents: Number(cents > CAP ? CAP : cents) };
}

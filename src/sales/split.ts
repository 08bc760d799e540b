import type { BalanceHolder } from '../ledger/index.js';
import type { Queryable } from '../platform/db/db.js';
import { validation } from '../platform/errors/app-error.js';
import { resolveRecipients } from '../recipients/index.js';

/** At most this many rules in one charge's split. */
export const MAX_SPLIT_RULES = 10;

/** One rule of a charge's `split`, as the request gives it (its types checked here, not trusted). */
export interface SplitRuleInput {
  recipientId: string;
  amountCents?: number;
  percent?: number;
  chargeFees?: boolean;
  liable?: boolean;
}

/** A checked rule: exactly one of amountCents and percentE2 (hundredths of a percent). */
export interface SplitRule {
  recipientId: string;
  amountCents: number | null;
  percentE2: number | null;
  chargeFees: boolean;
  liable: boolean;
}

/** Whose balance a share enters: the platform's account, or one of its recipients (internal id). */
export type Holder = BalanceHolder;

/** An amount a party (the account, or a recipient) holds or pays. */
export type HeldBy = { holder: Holder; amount: number };

/** One party of a split sale: its share of the amount (gross), what enters its balance (net), its terms. */
export interface Party {
  holder: Holder;
  gross: number;
  net: number;
  liable: boolean;
  paysFees: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A charge's `split`, checked (decisions.md, "Split payments"): a list of at most 10 rules, each a recipient
 * id with exactly one of `amountCents` (whole cents ≥ 1) or `percent` (more than 0, at most 100, at most two
 * decimals), optional booleans `chargeFees` and `liable`; each recipient once; at most one rule paying the
 * fees; the amounts adding up to at most the charge's amount, the percents to at most 100, and both
 * together to at most the amount. Anything else → VALIDATION_ERROR naming the rule.
 */
export function parseSplit(raw: unknown, amount: number): SplitRule[] {
  if (!Array.isArray(raw)) throw validation('split must be a list of rules');
  if (raw.length === 0) throw validation('split must have at least one rule (leave it out for no split)');
  if (raw.length > MAX_SPLIT_RULES) throw validation(`split has at most ${MAX_SPLIT_RULES} rules`);
  const seen = new Set<string>();
  const rules = raw.map((r, i): SplitRule => {
    const at = `split[${i}]`;
    if (!isObject(r)) throw validation(`${at} must be an object`);
    const known = new Set(['recipientId', 'amountCents', 'percent', 'chargeFees', 'liable']);
    const extra = Object.keys(r).find((k) => !known.has(k));
    if (extra !== undefined) throw validation(`${at}.${extra} is not a field of a split rule`);
    if (typeof r.recipientId !== 'string' || r.recipientId.length === 0 || r.recipientId.length > 64) {
      throw validation(`${at}.recipientId must be a recipient id`);
    }
    const recipientId = r.recipientId.toLowerCase();
    if (seen.has(recipientId)) throw validation(`${at}: recipient ${recipientId} appears twice in split`);
    seen.add(recipientId);
    const hasAmount = r.amountCents !== undefined;
    const hasPercent = r.percent !== undefined;
    if (hasAmount === hasPercent) throw validation(`${at} must have exactly one of amountCents and percent`);
    let amountCents: number | null = null;
    let percentE2: number | null = null;
    if (hasAmount) {
      if (typeof r.amountCents !== 'number' || !Number.isSafeInteger(r.amountCents) || r.amountCents < 1) {
        throw validation(`${at}.amountCents must be a whole number of cents, at least 1`);
      }
      amountCents = r.amountCents;
    } else {
      const p = r.percent;
      const e2 = typeof p === 'number' ? Math.round(p * 100) : Number.NaN;
      if (
        typeof p !== 'number' ||
        !Number.isFinite(p) ||
        Math.abs(e2 - p * 100) > 1e-6 ||
        e2 < 1 ||
        e2 > 10000
      ) {
        throw validation(`${at}.percent must be a number above 0 and at most 100, with at most two decimals`);
      }
      percentE2 = e2;
    }
    for (const flag of ['chargeFees', 'liable'] as const) {
      if (r[flag] !== undefined && typeof r[flag] !== 'boolean')
        throw validation(`${at}.${flag} must be a boolean`);
    }
    return {
      recipientId,
      amountCents,
      percentE2,
      chargeFees: r.chargeFees === true,
      liable: r.liable === true,
    };
  });
  if (rules.filter((r) => r.chargeFees).length > 1) {
    throw validation('split: exactly one party pays the fees; more than one rule says chargeFees: true');
  }
  const amounts = rules.reduce((s, r) => s + (r.amountCents ?? 0), 0);
  const percents = rules.reduce((s, r) => s + (r.percentE2 ?? 0), 0);
  if (amounts > amount) {
    throw validation(
      `split: the rules' amountCents add up to ${amounts}, more than the charge's amount ${amount}`,
    );
  }
  if (percents > 10000)
    throw validation(`split: the rules' percents add up to ${percents / 100}, more than 100`);
  // amounts and percents together: 10000 × amounts + amount × percents ≤ 10000 × amount (exact, in integers)
  if (BigInt(amounts) * 10000n + BigInt(amount) * BigInt(percents) > BigInt(amount) * 10000n) {
    throw validation(
      "split: the rules' amountCents and percents together take more than the charge's amount",
    );
  }
  return rules;
}

/**
 * Each party's share of a charge of `amount` whose fee is `fee`, in exact cents (decisions.md, "Split
 * payments"): a rule's share is its amountCents, or its percent of the amount rounded down; the platform's is
 * what the rules leave, rounded down the same way; the cents that rounding leaves over go to the party paying
 * the fees (the rule with chargeFees, else the platform), whose net is its share less the fee. The shares add
 * up to the amount and the nets to amount − fee. A fee payer whose share cannot cover the fee → VALIDATION_ERROR.
 * The recipients in the order of the rules, the platform last.
 */
export function splitShares(
  amount: number,
  fee: number,
  rules: SplitRule[],
  holders: { platform: number; recipients: number[] },
): Party[] {
  const a = BigInt(amount);
  const gross = rules.map((r) =>
    r.amountCents !== null ? r.amountCents : Number((a * BigInt(r.percentE2!)) / 10000n),
  );
  const amounts = rules.reduce((s, r) => s + BigInt(r.amountCents ?? 0), 0n);
  const percents = rules.reduce((s, r) => s + BigInt(r.percentE2 ?? 0), 0n);
  // the platform's exact share is amount − amounts − amount × percents / 10000; rounded down
  const platformTimes10000 = a * 10000n - amounts * 10000n - a * percents;
  const platformGross = Number(platformTimes10000 / 10000n);
  const payer = rules.findIndex((r) => r.chargeFees);
  const remainder = amount - platformGross - gross.reduce((s, g) => s + g, 0);
  const anyLiable = rules.some((r) => r.liable);
  const parties: Party[] = rules.map((r, i) => ({
    holder: { recipientId: holders.recipients[i]! },
    gross: gross[i]! + (i === payer ? remainder : 0),
    net: 0,
    liable: r.liable,
    paysFees: i === payer,
  }));
  parties.push({
    holder: { accountId: holders.platform },
    gross: platformGross + (payer === -1 ? remainder : 0),
    net: 0,
    liable: !anyLiable,
    paysFees: payer === -1,
  });
  for (const p of parties) p.net = p.gross - (p.paysFees ? fee : 0);
  const short = parties.find((p) => p.net < 0);
  if (short) {
    const who = 'recipientId' in short.holder ? `the recipient of split[${payer}]` : 'the platform';
    throw validation(
      `split: ${who} pays the fees (${fee} cents) but its share is ${short.gross} cents; give it a larger share or let another party pay them`,
    );
  }
  return parties;
}

/**
 * How a total taken from a sale's parties (refunds, a lost dispute: cents of its net) is shared among the
 * liable ones, in proportion to their nets, exact to the cent: each starts from its proportional part rounded
 * down, and the few cents left go one at a time to the party whose next cent is the most due (the highest
 * net ÷ (cents so far + 1); on a tie the party paying the fees, then the order of the rules). That is the
 * D'Hondt apportionment, the first `total` of one fixed sequence of cents, so a larger total never gives a
 * party less: the parts of refunds in progress and of a dispute (running totals) are never negative. Parties
 * not liable give nothing; liable parties whose nets are all zero leave it to the first liable one.
 */
export function allocate(total: number, parties: Party[]): number[] {
  const out = parties.map(() => 0);
  const liable = parties.map((p, i) => (p.liable ? i : -1)).filter((i) => i >= 0);
  // the order of ties: the liable party paying the fees first, then the rest as they come
  liable.sort((a, b) => Number(parties[b]!.paysFees) - Number(parties[a]!.paysFees) || a - b);
  const w = (i: number) => BigInt(Math.max(0, parties[i]!.net));
  const weight = liable.reduce((s, i) => s + w(i), 0n);
  if (liable.length === 0) return out;
  if (weight === 0n || total <= 0) {
    out[liable[0]!] = total;
    return out;
  }
  let given = 0;
  for (const i of liable) {
    out[i] = Number((BigInt(total) * w(i)) / weight);
    given += out[i]!;
  }
  for (let left = total - given; left > 0; left--) {
    let best = -1;
    for (const i of liable) {
      if (w(i) === 0n) continue;
      // w(i) / (out[i] + 1) > w(best) / (out[best] + 1), in integers
      if (best === -1 || w(i) * BigInt(out[best]! + 1) > w(best) * BigInt(out[i]! + 1)) best = i;
    }
    out[best] = out[best]! + 1;
  }
  return out;
}

/** The Sale object's `split`: each rule with its party's netCents, then the platform's (recipientId null). */
export function publicSplit(rules: SplitRule[], parties: Party[]): Record<string, unknown>[] {
  const platform = parties[parties.length - 1]!;
  return [
    ...rules.map((r, i) => ({
      recipientId: r.recipientId,
      ...(r.amountCents !== null ? { amountCents: r.amountCents } : { percent: r.percentE2! / 100 }),
      chargeFees: r.chargeFees,
      liable: r.liable,
      netCents: parties[i]!.net,
    })),
    { recipientId: null, chargeFees: platform.paysFees, liable: platform.liable, netCents: platform.net },
  ];
}

/** A split as stored on the sale: the Sale object's `split` and the recipients' internal ids, in order. */
export interface StoredSplit {
  json: Record<string, unknown>[];
  recipients: number[];
  parties: Party[];
}

/**
 * A charge's split checked against the account's recipients and its amount and fee (400 when it cannot be),
 * ready to store; null when the charge has none.
 */
export async function planSplit(
  q: Queryable,
  accountId: number,
  amount: number,
  fee: number,
  raw: unknown,
): Promise<StoredSplit | null> {
  if (raw === undefined || raw === null) return null;
  const rules = parseSplit(raw, amount);
  const ids = await resolveRecipients(
    q,
    accountId,
    rules.map((r) => r.recipientId),
  );
  const recipients = rules.map((r) => ids.get(r.recipientId)!);
  const parties = splitShares(amount, fee, rules, { platform: accountId, recipients });
  return { json: publicSplit(rules, parties), recipients, parties };
}

/**
 * The parties of a stored split sale, as its money is now: the recipients' nets from the stored split (the
 * rules fixed them on the charge's amount), the platform's… and the fee payer's net being what the sale's net
 * leaves after the others' (a paid amount that differs from the charge's, or a fee repriced on it, changes
 * only the share of the party paying the fees). Null for a sale without a split.
 */
export function partiesOf(sale: {
  account_id: number;
  net_amount: number;
  split: unknown;
  split_recipients: (number | string)[] | null;
}): Party[] | null {
  if (!Array.isArray(sale.split) || !sale.split_recipients) return null;
  const stored = sale.split as {
    recipientId: string | null;
    chargeFees: boolean;
    liable: boolean;
    netCents: number;
  }[];
  const parties: Party[] = stored.map((s, i) => ({
    holder:
      s.recipientId === null
        ? { accountId: Number(sale.account_id) }
        : { recipientId: Number(sale.split_recipients![i]) },
    gross: 0,
    net: Number(s.netCents),
    liable: s.liable,
    paysFees: s.chargeFees,
  }));
  const payer = parties.find((p) => p.paysFees)!;
  payer.net = Number(sale.net_amount) - parties.reduce((s, p) => s + (p === payer ? 0 : p.net), 0);
  return parties;
}

/**
 * What the split's fee payer would be left with if the sale's net became `netAmount` (a card captured for
 * less, whose fee is repriced on the captured amount): null when it is not below zero (or the sale has no
 * split), else who that party is ("recipient <id>", or "the account") and the net it would have.
 */
export function splitShortfall(
  sale: Parameters<typeof partiesOf>[0],
  netAmount: number,
): { payer: string; net: number } | null {
  const parties = partiesOf({ ...sale, net_amount: netAmount });
  if (!parties) return null;
  const i = parties.findIndex((p) => p.paysFees);
  const payer = parties[i]!;
  if (payer.net >= 0) return null;
  const stored = sale.split as { recipientId: string | null }[];
  const id = stored[i]!.recipientId;
  return { payer: id ? `recipient ${id}` : 'the account', net: payer.net };
}

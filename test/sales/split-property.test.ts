import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Posting } from '../../src/ledger/index.js';
import { AppError } from '../../src/platform/errors/app-error.js';
import {
  ledgerEffect,
  refundEffect,
  reserveRelease,
  type SaleMoney,
} from '../../src/sales/settlement/ledger-effects.js';
import { isDispute, type SaleStatus } from '../../src/sales/settlement/status-machine.js';
import { allocate, type Party, parseSplit, type SplitRule, splitShares } from '../../src/sales/split.js';

const PLATFORM = 1;

/** Random rules of a split: amounts or percents (two decimals), a fee payer or none, liable flags. */
const splitCase = fc
  .record({
    amount: fc.integer({ min: 1, max: 5_000_000 }),
    feePart: fc.double({ min: 0, max: 0.3, noNaN: true }),
    rules: fc.array(
      fc.record({
        kind: fc.constantFrom('amount', 'percent'),
        part: fc.double({ min: 0.0001, max: 0.12, noNaN: true }),
        liable: fc.boolean(),
      }),
      { minLength: 1, maxLength: 10 },
    ),
    payer: fc.integer({ min: -1, max: 9 }),
    reserve: fc.double({ min: 0, max: 0.2, noNaN: true }),
  })
  .map(({ amount, feePart, rules, payer, reserve }) => {
    const raw = rules.map((r, i) => ({
      recipientId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      ...(r.kind === 'amount'
        ? { amountCents: Math.max(1, Math.floor(amount * r.part)) }
        : { percent: Math.max(1, Math.floor(r.part * 10000)) / 100 }),
      chargeFees: i === payer,
      liable: r.liable,
    }));
    return { amount, fee: Math.floor(amount * feePart), raw, reserve };
  });

/** The split's parties, or null when the rules are refused (a 400): too much, or a fee payer short of the fee. */
function partiesOf(c: {
  amount: number;
  fee: number;
  raw: unknown[];
}): { rules: SplitRule[]; parties: Party[] } | null {
  try {
    const rules = parseSplit(c.raw, c.amount);
    const parties = splitShares(c.amount, c.fee, rules, {
      platform: PLATFORM,
      recipients: rules.map((_, i) => 100 + i),
    });
    return { rules, parties };
  } catch (err) {
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return null;
    throw err;
  }
}

const keyOf = (p: Posting) =>
  'system' in p.target
    ? p.target.system
    : `${'recipientId' in p.target ? `r${p.target.recipientId}` : `m${p.target.accountId}`}:${p.target.bucket === 'blocked' ? 'blocked' : 'available'}`;

function apply(b: Map<string, number>, postings: Posting[]): void {
  expect(postings.reduce((a, p) => a + p.amount, 0)).toBe(0);
  // a card sale's receivable counts as available until it settles (the settlement job moves it across)
  for (const p of postings) b.set(keyOf(p), (b.get(keyOf(p)) ?? 0) + p.amount);
}

const holderKey = (p: Party) =>
  'recipientId' in p.holder ? `r${p.holder.recipientId}` : `m${p.holder.accountId}`;

const step = fc.oneof(
  fc.record({ op: fc.constant('open' as const), part: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ op: fc.constant('make' as const), which: fc.nat() }),
  fc.record({ op: fc.constant('fail' as const), which: fc.nat() }),
  fc.record({ op: fc.constant('release' as const) }),
  fc.record({ op: fc.constant('dispute' as const), to: fc.constantFrom<SaleStatus>('MED', 'CHARGEBACK') }),
  fc.record({ op: fc.constant('outcome' as const), to: fc.constantFrom<SaleStatus>('PAGO', 'ESTORNADO') }),
);

describe('split shares', () => {
  it('add up to the amount and the nets to amount − fee, to the cent; the rounding goes to the fee payer', () => {
    fc.assert(
      fc.property(splitCase, (c) => {
        const split = partiesOf(c);
        if (!split) return;
        const { rules, parties } = split;
        expect(parties.reduce((s, p) => s + p.gross, 0)).toBe(c.amount);
        expect(parties.reduce((s, p) => s + p.net, 0)).toBe(c.amount - c.fee);
        expect(parties.filter((p) => p.paysFees)).toHaveLength(1);
        for (const [i, r] of rules.entries()) {
          const p = parties[i]!;
          expect(p.net).toBeGreaterThanOrEqual(0);
          if (p.paysFees) continue;
          // a party not paying fees gets exactly its amount, or its percent rounded down
          expect(p.gross).toBe(r.amountCents ?? Math.floor((c.amount * r.percentE2!) / 10000));
          expect(p.net).toBe(p.gross);
        }
        // liability: the platform when no rule is liable
        expect(parties.at(-1)!.liable).toBe(!rules.some((r) => r.liable));
      }),
      { numRuns: 3000 },
    );
  });

  it('allocate shares any total exactly among the liable parties, and never gives a party less for more', () => {
    fc.assert(
      fc.property(splitCase, fc.nat({ max: 5_000_000 }), fc.nat({ max: 5_000_000 }), (c, x, y) => {
        const split = partiesOf(c);
        if (!split) return;
        const [lo, hi] = x <= y ? [x, y] : [y, x];
        const a = allocate(lo, split.parties);
        const b = allocate(hi, split.parties);
        expect(a.reduce((s, v) => s + v, 0)).toBe(lo);
        expect(b.reduce((s, v) => s + v, 0)).toBe(hi);
        for (const [i, p] of split.parties.entries()) {
          if (!p.liable) expect(b[i]).toBe(0);
          expect(b[i]!).toBeGreaterThanOrEqual(a[i]!);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('through partial refunds, reserve release and disputes every entry balances, no blocked goes negative, shares stay exact', () => {
    fc.assert(
      fc.property(splitCase, fc.boolean(), fc.array(step, { maxLength: 25 }), (c, receivable, steps) => {
        const split = partiesOf(c);
        if (!split) return;
        const { parties } = split;
        const platformNet = parties.at(-1)!.net;
        let sale: SaleMoney = {
          accountId: PLATFORM,
          amount: c.amount,
          systemFee: c.fee,
          netAmount: c.amount - c.fee,
          reserveAmount: Math.min(Math.floor(c.amount * c.reserve), platformNet),
          reserveHeld: false,
          refundedNet: 0,
          refundPendingNet: 0,
          receivable,
          parties,
        };
        const b = new Map<string, number>();
        const paid = ledgerEffect(sale, 'PENDENTE', 'PAGO')!;
        apply(b, paid.postings);
        sale = { ...sale, reserveHeld: paid.reserveHeld };
        let status: SaleStatus = 'PAGO';
        let refunded = 0;
        const pending: { amount: number; net: number }[] = [];
        const totalOf = (p: Party) =>
          (b.get(`${holderKey(p)}:available`) ?? 0) + (b.get(`${holderKey(p)}:blocked`) ?? 0);
        const check = () => {
          const taken = allocate(status === 'ESTORNADO' ? sale.netAmount : sale.refundedNet, parties);
          for (const [i, p] of parties.entries()) {
            expect(b.get(`${holderKey(p)}:blocked`) ?? 0).toBeGreaterThanOrEqual(0);
            // each party holds its net less its part of what refunds (or the lost dispute) took
            expect(totalOf(p)).toBe(p.net - taken[i]!);
            // a party that is not liable keeps its whole share, and its available never goes below zero
            if (!p.liable) {
              expect(totalOf(p)).toBe(p.net);
              expect(b.get(`${holderKey(p)}:available`) ?? 0).toBeGreaterThanOrEqual(0);
            }
          }
          if (isDispute(status)) {
            const claims = allocate(sale.netAmount, parties);
            for (const [i, p] of parties.entries()) {
              if (p.liable)
                expect(b.get(`${holderKey(p)}:blocked`) ?? 0).toBeGreaterThanOrEqual(claims[i]! - taken[i]!);
            }
          }
          expect(b.get('fees')).toBe(c.fee);
          expect(b.get('processor')).toBe(
            -c.amount + (status === 'ESTORNADO' ? sale.netAmount : sale.refundedNet),
          );
        };
        check();
        for (const s of steps) {
          if (status === 'ESTORNADO') break;
          if (s.op === 'open' && status === 'PAGO') {
            const left = sale.amount - refunded - pending.reduce((a, p) => a + p.amount, 0);
            if (left <= 0) continue;
            const amount = Math.max(1, Math.floor((left * s.part) / 100));
            const net =
              amount === left
                ? sale.netAmount - sale.refundedNet - sale.refundPendingNet
                : Math.floor((sale.netAmount * amount) / sale.amount);
            const after = { ...sale, refundPendingNet: sale.refundPendingNet + net };
            const effect = refundEffect('sale.refund_held', sale, after, status);
            if (effect) apply(b, effect.postings);
            sale = after;
            pending.push({ amount, net });
          } else if ((s.op === 'make' || s.op === 'fail') && pending.length > 0) {
            const [r] = pending.splice(s.which % pending.length, 1);
            if (s.op === 'fail') {
              const after = { ...sale, refundPendingNet: sale.refundPendingNet - r!.net };
              const effect = refundEffect('sale.refund_released', sale, after, status);
              if (effect) apply(b, effect.postings);
              sale = after;
            } else if (refunded + r!.amount >= sale.amount) {
              const effect = ledgerEffect(sale, status, 'ESTORNADO');
              if (effect) apply(b, effect.postings);
              sale = { ...sale, reserveHeld: false };
              status = 'ESTORNADO';
            } else {
              const after = {
                ...sale,
                refundedNet: sale.refundedNet + r!.net,
                refundPendingNet: sale.refundPendingNet - r!.net,
              };
              const effect = refundEffect('sale.refunded', sale, after, status);
              if (effect) apply(b, effect.postings);
              sale = after;
              refunded += r!.amount;
            }
          } else if (s.op === 'release') {
            const effect = reserveRelease(sale, status);
            if (effect) {
              apply(b, effect.postings);
              sale = { ...sale, reserveHeld: effect.reserveHeld };
            }
          } else if (s.op === 'dispute' && status === 'PAGO') {
            const effect = ledgerEffect(sale, status, s.to);
            if (effect) apply(b, effect.postings);
            status = s.to;
          } else if (s.op === 'outcome' && isDispute(status)) {
            const effect = ledgerEffect(sale, status, s.to);
            if (effect) apply(b, effect.postings);
            if (s.to === 'ESTORNADO') sale = { ...sale, reserveHeld: false };
            status = s.to;
          }
          check();
        }
      }),
      { numRuns: 2000 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ledgerEffect,
  refundEffect,
  reserveRelease,
  type SaleMoney,
} from '../../../src/sales/settlement/ledger-effects.js';
import {
  checkTransition,
  isDispute,
  SALE_STATUSES,
  type SaleStatus,
} from '../../../src/sales/settlement/status-machine.js';

const money = fc
  .record({
    amount: fc.integer({ min: 1, max: 10_000_000 }),
    fee: fc.nat(),
    reserve: fc.nat(),
    receivable: fc.boolean(),
  })
  .map(({ amount, fee, reserve, receivable }) => {
    const systemFee = fee % (amount + 1);
    const netAmount = amount - systemFee;
    const reserveAmount = reserve % (netAmount + 1);
    return {
      accountId: 7,
      amount,
      systemFee,
      netAmount,
      reserveAmount,
      reserveHeld: false,
      refundedNet: 0,
      refundPendingNet: 0,
      receivable,
    } satisfies SaleMoney;
  });

type Buckets = { available: number; blocked: number; processor: number; fees: number };

function apply(buckets: Buckets, postings: { target: object; amount: number }[]): Buckets {
  expect(postings.reduce((a, p) => a + p.amount, 0)).toBe(0);
  const next = { ...buckets };
  for (const p of postings) {
    // a card sale's receivable counts as available until it settles (the settlement job moves it across)
    if ('bucket' in p.target) next[p.target.bucket === 'blocked' ? 'blocked' : 'available'] += p.amount;
    else next[(p.target as { system: 'processor' | 'fees' }).system] += p.amount;
  }
  return next;
}

/** A step of a paid sale's life: a refund opened, made or not made, the reserve released, a dispute. */
const step = fc.oneof(
  fc.record({ op: fc.constant('open' as const), part: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ op: fc.constant('make' as const), which: fc.nat() }),
  fc.record({ op: fc.constant('fail' as const), which: fc.nat() }),
  fc.record({ op: fc.constant('release' as const) }),
  fc.record({ op: fc.constant('dispute' as const), to: fc.constantFrom<SaleStatus>('MED', 'CHARGEBACK') }),
  fc.record({ op: fc.constant('outcome' as const), to: fc.constantFrom<SaleStatus>('PAGO', 'ESTORNADO') }),
);

describe('ledger effects', () => {
  it('every transition balances and a sale out of PAGO and its disputes holds nothing', () => {
    fc.assert(
      fc.property(
        money,
        fc.constantFrom(...SALE_STATUSES),
        fc.constantFrom(...SALE_STATUSES),
        (sale, from, to) => {
          if (checkTransition(from, to) !== 'apply') return;
          const open = from === 'PENDENTE' || from === 'EM_PROCESSAMENTO';
          const s = { ...sale, reserveHeld: !open && sale.reserveAmount > 0 };
          const effect = ledgerEffect(s, from, to);
          const postings = effect?.postings ?? [];
          expect(postings.reduce((a, p) => a + p.amount, 0)).toBe(0);
          if (to === 'ESTORNADO') expect(effect?.reserveHeld ?? s.reserveHeld).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('through any refunds, reserve release and disputes, the sale never leaves a bucket negative, and its whole net goes back in full refunds', () => {
    fc.assert(
      fc.property(money, fc.array(step, { maxLength: 25 }), (start, steps) => {
        let sale: SaleMoney = start;
        let status: SaleStatus = 'PENDENTE';
        let refunded = 0; // amount returned to the payer
        const pending: { amount: number; net: number }[] = [];
        const paid = ledgerEffect(sale, 'PENDENTE', 'PAGO')!;
        let b = apply({ available: 0, blocked: 0, processor: 0, fees: 0 }, paid.postings);
        sale = { ...sale, reserveHeld: paid.reserveHeld };
        status = 'PAGO';
        const check = () => {
          expect(b.available).toBeGreaterThanOrEqual(0);
          expect(b.blocked).toBeGreaterThanOrEqual(0);
          if (status === 'ESTORNADO') expect(b.available + b.blocked).toBe(0);
          else expect(b.available + b.blocked).toBe(sale.netAmount - sale.refundedNet);
          if (isDispute(status)) expect(b.available).toBe(0);
          // what the processor got back is the net refunded; the fee stays with the gateway
          expect(b.processor).toBe(
            -sale.amount + (status === 'ESTORNADO' ? sale.netAmount : sale.refundedNet),
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
            // a refund the held reserve covers takes nothing from available
            if (sale.reserveHeld && sale.reserveAmount - sale.refundedNet - sale.refundPendingNet >= net) {
              expect(effect).toBeNull();
            }
            if (effect) b = apply(b, effect.postings);
            sale = after;
            pending.push({ amount, net });
          } else if ((s.op === 'make' || s.op === 'fail') && pending.length > 0) {
            const [r] = pending.splice(s.which % pending.length, 1);
            if (s.op === 'fail') {
              const after = { ...sale, refundPendingNet: sale.refundPendingNet - r!.net };
              const effect = refundEffect('sale.refund_released', sale, after, status);
              if (effect) b = apply(b, effect.postings);
              sale = after;
            } else if (refunded + r!.amount >= sale.amount) {
              const effect = ledgerEffect(sale, status, 'ESTORNADO');
              if (effect) b = apply(b, effect.postings);
              sale = { ...sale, reserveHeld: false };
              status = 'ESTORNADO';
            } else {
              const after = {
                ...sale,
                refundedNet: sale.refundedNet + r!.net,
                refundPendingNet: sale.refundPendingNet - r!.net,
              };
              const effect = refundEffect('sale.refunded', sale, after, status);
              if (effect) b = apply(b, effect.postings);
              sale = after;
              refunded += r!.amount;
            }
          } else if (s.op === 'release') {
            const effect = reserveRelease(sale, status);
            if (effect) {
              b = apply(b, effect.postings);
              sale = { ...sale, reserveHeld: effect.reserveHeld };
            }
          } else if (s.op === 'dispute' && status === 'PAGO') {
            const effect = ledgerEffect(sale, status, s.to);
            if (effect) b = apply(b, effect.postings);
            status = s.to;
          } else if (s.op === 'outcome' && isDispute(status)) {
            const effect = ledgerEffect(sale, status, s.to);
            if (effect) b = apply(b, effect.postings);
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

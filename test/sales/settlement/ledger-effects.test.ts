import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ledgerEffect,
  refundHold,
  refundRelease,
  reserveRelease,
  type SaleMoney,
} from '../../../src/sales/settlement/ledger-effects.js';
import {
  checkTransition,
  SALE_STATUSES,
  type SaleStatus,
} from '../../../src/sales/settlement/status-machine.js';

/**
 * What a sale holds in the merchant's buckets in a status (the documented per-sale invariant); a refund held
 * (asked by the merchant, not yet answered) keeps the whole net in blocked, as a dispute does.
 */
function holdings(s: SaleMoney, status: SaleStatus): { available: number; blocked: number } {
  const held = s.reserveHeld ? s.reserveAmount : 0;
  if (status === 'PAGO' && s.refundHeld) return { available: 0, blocked: s.netAmount };
  if (status === 'PAGO') return { available: s.netAmount - held, blocked: held };
  if (status === 'MED' || status === 'CHARGEBACK') return { available: 0, blocked: s.netAmount };
  return { available: 0, blocked: 0 };
}

const money = fc
  .record({
    amount: fc.integer({ min: 1, max: 10_000_000 }),
    fee: fc.nat(),
    reserve: fc.nat(),
    held: fc.boolean(),
    refundHeld: fc.boolean(),
  })
  .map(({ amount, fee, reserve, held, refundHeld }) => {
    const systemFee = fee % (amount + 1);
    const netAmount = amount - systemFee;
    const reserveAmount = reserve % (netAmount + 1);
    return {
      accountId: 7,
      amount,
      systemFee,
      netAmount,
      reserveAmount,
      reserveHeld: held && reserveAmount > 0,
      refundHeld,
      receivable: false,
    } satisfies SaleMoney;
  });

function sums(postings: { target: object; amount: number }[]) {
  let available = 0;
  let blocked = 0;
  for (const p of postings) {
    if ('bucket' in p.target && p.target.bucket === 'available') available += p.amount;
    if ('bucket' in p.target && p.target.bucket === 'blocked') blocked += p.amount;
  }
  return { available, blocked };
}

describe('ledgerEffect', () => {
  it('every allowed transition balances and moves the buckets from one status holding to the next', () => {
    fc.assert(
      fc.property(
        money,
        fc.constantFrom(...SALE_STATUSES),
        fc.constantFrom(...SALE_STATUSES),
        (sale, from, to) => {
          if (checkTransition(from, to) !== 'apply') return;
          // a sale that was never paid holds no reserve; only a paid or disputed one can hold a refund
          const open = from === 'PENDENTE' || from === 'EM_PROCESSAMENTO';
          const s = {
            ...sale,
            reserveHeld: open ? false : sale.reserveHeld,
            refundHeld: ['PAGO', 'MED', 'CHARGEBACK'].includes(from) && sale.refundHeld,
          };
          const effect = ledgerEffect(s, from, to);
          const postings = effect?.postings ?? [];
          expect(postings.reduce((a, p) => a + p.amount, 0)).toBe(0);
          const after = {
            ...s,
            reserveHeld: effect?.reserveHeld ?? s.reserveHeld,
            refundHeld: effect?.refundHeld ?? s.refundHeld,
          };
          // a sale out of PAGO and its disputes holds no refund any more
          if (!['PAGO', 'MED', 'CHARGEBACK'].includes(to)) expect(after.refundHeld).toBe(false);
          const before = holdings(s, from);
          const target = holdings(after, to);
          expect(sums(postings)).toEqual({
            available: target.available - before.available,
            blocked: target.blocked - before.blocked,
          });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reserve release keeps the holdings invariant', () => {
    fc.assert(
      fc.property(money, fc.constantFrom(...SALE_STATUSES), (sale, status) => {
        const effect = reserveRelease(sale, status);
        // a held reserve is released in PAGO and during a dispute; otherwise there is nothing to do
        expect(effect === null).toBe(!sale.reserveHeld || !['PAGO', 'MED', 'CHARGEBACK'].includes(status));
        if (!effect) return;
        const postings = effect.postings;
        expect(postings.reduce((a, p) => a + p.amount, 0)).toBe(0);
        const before = holdings(sale, status);
        const after = holdings(
          { ...sale, reserveHeld: effect.reserveHeld, refundHeld: effect.refundHeld },
          status,
        );
        expect(sums(postings)).toEqual({
          available: after.available - before.available,
          blocked: after.blocked - before.blocked,
        });
      }),
    );
  });

  it('a refund hold moves the sale to "whole net blocked" and its release moves it back, in PAGO and in a dispute', () => {
    fc.assert(
      fc.property(money, fc.constantFrom<SaleStatus>('PAGO', 'MED', 'CHARGEBACK'), (sale, status) => {
        const unheld = { ...sale, refundHeld: false };
        const hold = refundHold(unheld, status);
        expect(hold?.refundHeld).toBe(true);
        expect(refundHold({ ...sale, refundHeld: true }, status)).toBeNull(); // held once
        const held = { ...unheld, refundHeld: true };
        expect(sums(hold!.postings)).toEqual({
          available: holdings(held, status).available - holdings(unheld, status).available,
          blocked: holdings(held, status).blocked - holdings(unheld, status).blocked,
        });
        const release = refundRelease(held, status)!;
        expect(release.refundHeld).toBe(false);
        expect(release.postings.reduce((a, p) => a + p.amount, 0)).toBe(0);
        expect(sums(release.postings)).toEqual({
          available: holdings(unheld, status).available - holdings(held, status).available,
          blocked: holdings(unheld, status).blocked - holdings(held, status).blocked,
        });
        expect(refundRelease(unheld, status)).toBeNull();
      }),
    );
  });
});

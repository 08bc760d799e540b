/** How a sale's facts meet the rules (src/risk/rules.ts), without a server: every condition, lists, order. */
import { describe, expect, it } from 'vitest';
import {
  compileRule,
  decide,
  normalizeRule,
  type RiskFacts,
  type RiskRuleInput,
} from '../../src/risk/rules.js';

const facts = (extra: Partial<RiskFacts> = {}): RiskFacts => ({
  method: 'CREDIT_CARD',
  amountCents: 10_000,
  email: 'maria@example.com',
  document: '52998224725',
  ip: '198.51.100.7',
  card: { bin: '411111', fingerprint: 'a'.repeat(64) },
  ...extra,
});
let next = 1;
const rule = (input: RiskRuleInput) => compileRule({ id: next++, ...normalizeRule(input) });

describe('risk rules', () => {
  it('every condition must hold; a list holds when any entry does', () => {
    const r = rule({
      name: 'r',
      when: { emailDomainIn: ['x.example', 'example.com'], amountCentsAbove: 5000 },
      action: 'block',
    });
    expect(decide([r], facts())).toMatchObject({ decision: 'block', rule: r.id, ruleName: 'r' });
    expect(decide([r], facts({ amountCents: 5000 }))).toEqual({ decision: 'allow', rule: null });
    expect(decide([r], facts({ email: null }))).toEqual({ decision: 'allow', rule: null });
  });

  it('addresses and ranges, IPv4 and IPv6, an IPv4-mapped address as its IPv4', () => {
    const r = rule({
      name: 'ip',
      when: { ipIn: ['203.0.113.0/24', '2001:db8::/32', '192.0.2.1'] },
      action: 'block',
    });
    for (const ip of ['203.0.113.9', '::ffff:203.0.113.9', '2001:db8:1::5', '192.0.2.1']) {
      expect(decide([r], facts({ ip })).decision, ip).toBe('block');
    }
    for (const ip of ['203.0.114.1', '2001:db9::1', 'junk', null]) {
      expect(decide([r], facts({ ip })).decision, String(ip)).toBe('allow');
    }
  });

  it('a block wins over a review met first; a review matches card sales only', () => {
    const review = rule({ name: 'review', when: { amountCentsAbove: 0 }, action: 'review' });
    const block = rule({ name: 'block', when: { documentIn: ['529.982.247-25'] }, action: 'block' });
    expect(decide([review, block], facts()).ruleName).toBe('block');
    expect(decide([review], facts()).decision).toBe('review');
    const { card: _card, ...pix } = facts({ method: 'PIX' });
    expect(decide([review], pix).decision).toBe('allow');
  });

  it('card conditions never match a sale without a card', () => {
    const bins = rule({ name: 'bin', when: { binIn: ['411111'] }, action: 'block' });
    const { card: _card, ...boleto } = facts({ method: 'BOLETO' });
    expect(decide([bins], boleto).decision).toBe('allow');
    expect(decide([bins], facts()).decision).toBe('block');
  });

  it('normalizes what operators type: e-mails and domains lowercased, documents as digits, duplicates once', () => {
    expect(
      normalizeRule({
        name: '  Lista ',
        when: {
          emailDomainIn: ['@Example.COM', 'example.com'],
          documentIn: ['529.982.247-25'],
          emailIn: ['A@B.example'],
        },
        action: 'block',
      }),
    ).toEqual({
      name: 'Lista',
      when: { emailDomainIn: ['example.com'], documentIn: ['52998224725'], emailIn: ['a@b.example'] },
      action: 'block',
    });
  });

  it('ranges are read as addresses are: a mapped range is its IPv4 range, the compatible form stays IPv6', () => {
    expect(
      normalizeRule({
        name: 'r',
        when: { ipIn: ['::ffff:127.0.0.17/126', '::1.2.3.0/120', '10.1.2.3/8', '::ffff:0:0/95'] },
        action: 'block',
      }).when.ipIn,
    ).toEqual(['127.0.0.16/30', '::102:300/120', '10.0.0.0/8', '::fffe:0:0/95']);
    const mapped = rule({ name: 'm', when: { ipIn: ['::ffff:127.0.0.16/126'] }, action: 'block' });
    for (const ip of ['127.0.0.16', '127.0.0.19', '::ffff:127.0.0.18']) {
      expect(decide([mapped], facts({ ip })).decision, ip).toBe('block');
    }
    expect(decide([mapped], facts({ ip: '127.0.0.20' })).decision).toBe('allow');
    const compatible = rule({ name: 'c', when: { ipIn: ['::1.2.3.0/120'] }, action: 'block' });
    expect(decide([compatible], facts({ ip: '1.2.3.4' })).decision).toBe('allow');
    expect(decide([compatible], facts({ ip: '::1.2.3.4' })).decision).toBe('block');
    const wide = rule({ name: 'w', when: { ipIn: ['::ffff:0:0/95'] }, action: 'block' });
    expect(decide([wide], facts({ ip: '198.51.100.7' })).decision).toBe('block');
    // a rule stored before ranges were normalized is read normalized
    const stored = compileRule({
      id: next++,
      name: 's',
      action: 'block',
      when: { ipIn: ['::ffff:7f00:10/126'] },
    });
    expect(decide([stored], facts({ ip: '127.0.0.17' })).decision).toBe('block');
  });

  it('e-mails compare canonical: case, trailing dot, +tag, Gmail dots; domains match their subdomains', () => {
    const emails = rule({
      name: 'e',
      when: { emailIn: ['Fraud@Example.com.', 'golpe@gmail.com'] },
      action: 'block',
    });
    for (const email of ['fraud+1@example.com', 'FRAUD@EXAMPLE.COM', 'g.o.l.p.e+x@googlemail.com']) {
      expect(decide([emails], facts({ email })).decision, email).toBe('block');
    }
    for (const email of ['fraud1@example.com', 'f.raud@example.com', 'fraud@example.com.br']) {
      expect(decide([emails], facts({ email })).decision, email).toBe('allow');
    }
    const domains = rule({ name: 'd', when: { emailDomainIn: ['evil.example.'] }, action: 'block' });
    for (const email of ['x@evil.example', 'x@sub.evil.example', 'x@evil.example.']) {
      expect(decide([domains], facts({ email })).decision, email).toBe('block');
    }
    for (const email of ['x@notevil.example', 'x@evil.example.com']) {
      expect(decide([domains], facts({ email })).decision, email).toBe('allow');
    }
    // stored before the canonical form: read in it
    const stored = compileRule({
      id: next++,
      name: 's',
      action: 'block',
      when: { emailIn: ['A+b@X.example'] },
    });
    expect(decide([stored], facts({ email: 'a@x.example' })).decision).toBe('block');
  });
});

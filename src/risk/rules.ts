import ipaddr from 'ipaddr.js';
import { validation } from '../platform/errors/app-error.js';
import { canonicalIp } from '../platform/net/ip.js';

export type RiskAction = 'review' | 'block';
export type PaymentMethod = 'PIX' | 'BOLETO' | 'CREDIT_CARD' | 'DEBIT_CARD';
export const PAYMENT_METHODS: readonly PaymentMethod[] = ['PIX', 'BOLETO', 'CREDIT_CARD', 'DEBIT_CARD'];
const CARD_METHODS: readonly PaymentMethod[] = ['CREDIT_CARD', 'DEBIT_CARD'];

/** What a rule asks of a sale: every condition given must hold; a list holds when any of its entries does. */
export interface RiskConditions {
  methods?: PaymentMethod[];
  amountCentsAbove?: number;
  emailDomainIn?: string[];
  emailIn?: string[];
  documentIn?: string[];
  binIn?: string[];
  cardFingerprintIn?: string[];
  ipIn?: string[];
}

export interface RiskRuleInput {
  name: string;
  when: RiskConditions;
  action: RiskAction;
}

export interface RiskRuleView extends RiskRuleInput {
  id: number;
  createdBy: string;
  createdAt: string;
}

/** What is known of a sale when it is decided; a card's facts only for card sales. */
export interface RiskFacts {
  method: PaymentMethod;
  amountCents: number;
  email: string | null;
  document: string | null;
  ip: string | null;
  card?: { bin: string | null; fingerprint: string | null };
}

/** The decision recorded on the sale (its `risk`): the rule that decided, none for `allow`. */
export interface RiskDecision {
  decision: 'allow' | 'review' | 'block';
  rule: number | null;
  ruleName?: string;
}

export const ALLOW: RiskDecision = { decision: 'allow', rule: null };

/** A sale's facts as rules read them: the address parsed once, when a rule first asks for it. */
interface Subject extends RiskFacts {
  emailDomain: string | null;
  address(): { text: string; parsed: ipaddr.IPv4 | ipaddr.IPv6 } | null;
}

/** A rule ready to match: its lists as sets, its address ranges parsed once. */
export interface CompiledRule {
  id: number;
  name: string;
  action: RiskAction;
  matches: (subject: Subject) => boolean;
}

const MAX_LIST = 10_000;

/** Checks and normalizes a rule as an operator wrote it (400 with what is wrong); the stored form. */
export function normalizeRule(input: RiskRuleInput): RiskRuleInput {
  const name = input.name.trim();
  if (name === '') throw validation('name must not be empty');
  const w = input.when;
  const when: RiskConditions = {};
  if (w.methods !== undefined) {
    if (w.methods.length === 0) throw validation('when.methods must name at least one method');
    when.methods = [...new Set(w.methods)];
  }
  if (w.amountCentsAbove !== undefined) when.amountCentsAbove = w.amountCentsAbove;
  const list = (
    field: keyof RiskConditions,
    values: string[] | undefined,
    norm: (v: string) => string | null,
  ) => {
    if (values === undefined) return;
    if (values.length === 0) throw validation(`when.${field} must have at least one entry`);
    if (values.length > MAX_LIST) throw validation(`when.${field} has more than ${MAX_LIST} entries`);
    const out = new Set<string>();
    for (const v of values) {
      const n = norm(v);
      if (n === null) throw validation(`when.${field}: "${v.slice(0, 80)}" is not valid`);
      out.add(n);
    }
    (when as Record<string, unknown>)[field] = [...out];
  };
  list('emailDomainIn', w.emailDomainIn, (v) => {
    const d = v.trim().toLowerCase().replace(/^@/, '');
    return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d) ? d : null;
  });
  list('emailIn', w.emailIn, (v) => {
    const e = v.trim().toLowerCase();
    return /^[^@\s]+@[^@\s]+$/.test(e) ? e : null;
  });
  list('documentIn', w.documentIn, (v) => {
    const d = v.replace(/\D/g, '');
    return d.length === 11 || d.length === 14 ? d : null;
  });
  list('binIn', w.binIn, (v) => (/^\d{6}$/.test(v.trim()) ? v.trim() : null));
  list('cardFingerprintIn', w.cardFingerprintIn, (v) =>
    /^[0-9a-f]{64}$/.test(v.trim().toLowerCase()) ? v.trim().toLowerCase() : null,
  );
  list('ipIn', w.ipIn, normalizeRange);
  if (Object.keys(when).length === 0) {
    throw validation('when must have at least one condition: a rule matching every sale is not a rule');
  }
  const cardOnly = when.binIn !== undefined || when.cardFingerprintIn !== undefined;
  if ((cardOnly || input.action === 'review') && when.methods?.every((m) => !CARD_METHODS.includes(m))) {
    throw validation(
      cardOnly
        ? 'binIn and cardFingerprintIn match card sales only: when.methods names no card method'
        : 'a review holds a card authorization: when.methods names no card method',
    );
  }
  return { name, when, action: input.action };
}

/** An address or a CIDR range, canonical; null when it is neither. */
function normalizeRange(raw: string): string | null {
  const text = raw.trim();
  if (!text.includes('/')) return canonicalIp(text);
  try {
    const [addr, bits] = ipaddr.parseCIDR(text);
    return `${addr.toString()}/${bits}`;
  } catch {
    return null;
  }
}

/** The rule as a matcher over a sale's facts. */
export function compileRule(rule: {
  id: number;
  name: string;
  action: RiskAction;
  when: RiskConditions;
}): CompiledRule {
  const w = rule.when;
  const tests: ((f: Subject) => boolean)[] = [];
  // a review holds a card authorization: it matches card sales only
  if (rule.action === 'review') tests.push((f) => f.card !== undefined);
  if (w.methods) {
    const methods = new Set(w.methods);
    tests.push((f) => methods.has(f.method));
  }
  if (w.amountCentsAbove !== undefined) {
    const above = w.amountCentsAbove;
    tests.push((f) => f.amountCents > above);
  }
  if (w.emailDomainIn) {
    const domains = new Set(w.emailDomainIn);
    tests.push((f) => f.emailDomain !== null && domains.has(f.emailDomain));
  }
  if (w.emailIn) {
    const emails = new Set(w.emailIn);
    tests.push((f) => f.email !== null && emails.has(f.email));
  }
  if (w.documentIn) {
    const documents = new Set(w.documentIn);
    tests.push((f) => f.document !== null && documents.has(f.document));
  }
  if (w.binIn) {
    const bins = new Set(w.binIn);
    tests.push((f) => f.card?.bin != null && bins.has(f.card.bin));
  }
  if (w.cardFingerprintIn) {
    const prints = new Set(w.cardFingerprintIn);
    tests.push((f) => f.card?.fingerprint != null && prints.has(f.card.fingerprint));
  }
  if (w.ipIn) tests.push(ipMatcher(w.ipIn));
  return { id: rule.id, name: rule.name, action: rule.action, matches: (f) => tests.every((t) => t(f)) };
}

function ipMatcher(entries: string[]): (f: Subject) => boolean {
  const exact = new Set(entries.filter((e) => !e.includes('/')));
  const ranges = entries.filter((e) => e.includes('/')).map((e) => ipaddr.parseCIDR(e));
  return (f) => {
    const address = f.address();
    if (address === null) return false;
    if (exact.has(address.text)) return true;
    const { parsed } = address;
    return ranges.some(([net, bits]) => parsed.kind() === net.kind() && parsed.match(net, bits));
  };
}

function subjectOf(facts: RiskFacts): Subject {
  let address: ReturnType<Subject['address']> | undefined;
  return {
    ...facts,
    emailDomain: facts.email === null ? null : facts.email.slice(facts.email.lastIndexOf('@') + 1),
    address() {
      if (address === undefined) {
        const text = facts.ip === null ? null : canonicalIp(facts.ip);
        address = text === null ? null : { text, parsed: ipaddr.parse(text) };
      }
      return address;
    },
  };
}

/** The first block that matches, else the first review, else allow (rules in id order). */
export function decide(rules: readonly CompiledRule[], facts: RiskFacts): RiskDecision {
  const subject = subjectOf(facts);
  let review: CompiledRule | null = null;
  for (const rule of rules) {
    if (!rule.matches(subject)) continue;
    if (rule.action === 'block') return { decision: 'block', rule: rule.id, ruleName: rule.name };
    review ??= rule;
  }
  return review ? { decision: 'review', rule: review.id, ruleName: review.name } : ALLOW;
}

/** A sale's facts from its customer: the e-mail lowercased, the document as digits. */
export function customerFacts(customer: { email?: string | null; document?: string | null }): {
  email: string | null;
  document: string | null;
} {
  return {
    email: customer.email ? customer.email.trim().toLowerCase() : null,
    document: customer.document ? customer.document.replace(/\D/g, '') : null,
  };
}

import ipaddr from 'ipaddr.js';
import { validation } from '../platform/errors/app-error.js';
import { canonicalIp } from '../platform/net/ip.js';
import { isCpfOrCnpj } from '../platform/text/documents.js';
import { canonicalDomain, canonicalEmail, domainAndParents } from './emails.js';

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

/**
 * A sale's facts as rules read them: the e-mail in its canonical form (emails.ts), its domain with every parent
 * domain, the address parsed once, when a rule first asks for it.
 */
interface Subject extends RiskFacts {
  emailDomains: string[];
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
  list('emailDomainIn', w.emailDomainIn, ruleDomain);
  list('emailIn', w.emailIn, ruleEmail);
  // the one CPF/CNPJ check every route applies: a document no charge could carry would never match
  list('documentIn', w.documentIn, (v) => {
    const d = v.replace(/\D/g, '');
    return isCpfOrCnpj(d) ? d : null;
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

/** A domain entry (`example.com`, `@Example.COM.`), canonical: matches it and its subdomains. */
function ruleDomain(raw: string): string | null {
  const d = canonicalDomain(raw.trim().replace(/^@/, ''));
  return d !== null && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d) ? d : null;
}

/** An e-mail entry in its canonical form (emails.ts): what it matches is every way of writing that mailbox. */
function ruleEmail(raw: string): string | null {
  const e = canonicalEmail(raw);
  return e !== null && !/\s/.test(e) ? e : null;
}

/**
 * An address or a CIDR range, canonical; null when it is neither. A range of IPv4-mapped IPv6 addresses
 * (`::ffff:192.0.2.0/120`) is the IPv4 range it denotes (`192.0.2.0/24`), as a mapped address is its IPv4;
 * a range is written by its network address.
 */
function normalizeRange(raw: string): string | null {
  const text = raw.trim();
  if (!text.includes('/')) return canonicalIp(text);
  const range = parseRange(text);
  return range === null ? null : `${range[0].toString()}/${range[1]}`;
}

/**
 * A CIDR range as [network, bits]; null when it is none. Its address is read as canonicalIp reads addresses (a
 * mapped one is its IPv4, the compatible `::a.b.c.d` stays IPv6), so a mapped range of 96 bits or more is the
 * IPv4 range of its last 32; a shorter one stays an IPv6 range (ipMatcher meets IPv4 addresses with it too).
 */
function parseRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  const slash = text.lastIndexOf('/');
  const bitsText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return null;
  let bits = Number(bitsText);
  const canonical = canonicalIp(text.slice(0, slash));
  if (canonical === null) return null;
  let addr: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(canonical);
  if (text.slice(0, slash).includes(':') && addr.kind() === 'ipv4') {
    if (bits >= 96) bits -= 96;
    else addr = (addr as ipaddr.IPv4).toIPv4MappedAddress();
  }
  if (bits > (addr.kind() === 'ipv4' ? 32 : 128)) return null;
  const network =
    addr.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`);
  return [network, bits];
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
  // entries stored before a canonical form was compared are read in it too
  if (w.emailDomainIn) {
    const domains = canonicalSet(w.emailDomainIn, ruleDomain);
    tests.push((f) => f.emailDomains.some((d) => domains.has(d)));
  }
  if (w.emailIn) {
    const emails = canonicalSet(w.emailIn, ruleEmail);
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

function canonicalSet(entries: string[], norm: (v: string) => string | null): Set<string> {
  return new Set(entries.map((e) => norm(e) ?? e));
}

/**
 * Exact addresses and ranges, both canonical (an entry stored before ranges were is read again): an IPv4
 * address also meets an IPv6 range holding its IPv4-mapped form (`::ffff:0:0/95`), as a mapped address is
 * that IPv4 address.
 */
function ipMatcher(entries: string[]): (f: Subject) => boolean {
  const exact = new Set(entries.filter((e) => !e.includes('/')).map((e) => canonicalIp(e) ?? e));
  const ranges = entries
    .filter((e) => e.includes('/'))
    .map(parseRange)
    .filter((r) => r !== null);
  return (f) => {
    const address = f.address();
    if (address === null) return false;
    if (exact.has(address.text)) return true;
    const { parsed } = address;
    const mapped = parsed.kind() === 'ipv4' ? (parsed as ipaddr.IPv4).toIPv4MappedAddress() : null;
    return ranges.some(([net, bits]) => {
      if (parsed.kind() === net.kind()) return parsed.match(net, bits);
      return mapped !== null && net.kind() === 'ipv6' && mapped.match(net, bits);
    });
  };
}

function subjectOf(facts: RiskFacts): Subject {
  let address: ReturnType<Subject['address']> | undefined;
  const email = facts.email === null ? null : canonicalEmail(facts.email);
  return {
    ...facts,
    email,
    emailDomains: email === null ? [] : domainAndParents(email.slice(email.lastIndexOf('@') + 1)),
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

import { listRiskRules } from '../../src/risk/index.js';
import { compileRule, decide, normalizeRule, type RiskRuleInput } from '../../src/risk/rules.js';
import {
  approvedCard,
  type BenchServer,
  benchMerchant,
  CARD_SALE,
  type LoadOptions,
  measureInterleaved,
  printRow,
  WARMUP,
} from '../lib.js';

const ROUNDS = Number(process.env.BENCH_RISK_ROUNDS ?? 9);
const SECONDS = 4;
const RULES = 50;

/**
 * 50 rules that the bench's sales nearly match: every condition holds but the last, so each rule is read whole
 * (the worst case for a sale that no rule stops). Half block, half review; a mix of every kind of condition.
 */
function nearMisses(): unknown[] {
  return Array.from({ length: RULES }, (_, i) => ({
    name: `bench rule ${i}`,
    action: i % 2 === 0 ? 'block' : 'review',
    when: {
      methods: ['CREDIT_CARD', 'DEBIT_CARD'],
      amountCentsAbove: i,
      emailDomainIn: ['example.com', ...Array.from({ length: 20 }, (_, j) => `fraud${i}-${j}.example`)],
      documentIn: ['52998224725', '11144477735'],
      binIn: ['411111', '522222'],
      ipIn: [`203.0.${i}.0/24`, '2001:db8::/32'],
    },
  }));
}

/**
 * Card authorizations (POST /api/transactions CREDIT_CARD through the sandbox acquirer: a token used, the sale
 * stored, authorized and captured, the ledger entry) with 50 risk rules in force against the same with none,
 * on one gateway, rounds alternated: the rules are written before each target round and deleted before each
 * baseline round (every process reloads them on the change's NOTIFY). Cost ratio goal: at most 1.1.
 */
export async function run(server: BenchServer): Promise<void> {
  const merchant = await benchMerchant(server.db);
  const perSecond = Number(process.env.BENCH_CARD_RATE ?? 500);
  const needed = Math.ceil(((WARMUP + SECONDS) * 2 + SECONDS * (2 * ROUNDS + 1)) * perSecond);
  const tokens: string[] = [];
  while (tokens.length < needed) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await fetch(`${server.url}/api/cards/tokens`, {
          method: 'POST',
          headers: {
            'x-api-public-key': merchant.keys['x-api-public-key']!,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            number: approvedCard('411111'),
            holderName: 'BENCH BUYER',
            expMonth: 12,
            expYear: 2035,
            cvv: '123',
          }),
        });
        if (res.status !== 201) throw new Error(`tokenizing answered ${res.status}`);
        return ((await res.json()) as { token: string }).token;
      }),
    );
    tokens.push(...batch);
  }
  let next = 0;
  const authorize: LoadOptions = {
    url: `${server.url}/api/transactions`,
    method: 'POST',
    headers: { ...merchant.keys, 'content-type': 'application/json' },
    connections: 16,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            ...CARD_SALE,
            paymentMethod: 'CREDIT_CARD',
            card: { token: tokens[next++ % tokens.length] },
          }),
        }),
      },
    ],
  };
  const ops = { ...authorize };
  const rules = nearMisses();
  const writeRules = async () => {
    await server.db.query('DELETE FROM risk_rules');
    for (const rule of rules) {
      const r = rule as { name: string; action: string; when: unknown };
      await server.db.query(
        'INSERT INTO risk_rules (name, conditions, action, created_by) VALUES ($1, $2, $3, $4)',
        [r.name, JSON.stringify(r.when), r.action, 'bench'],
      );
    }
    await server.db.query(`SELECT pg_notify('risk_rules', '')`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  };
  const noRules = async () => {
    await server.db.query('DELETE FROM risk_rules');
    await server.db.query(`SELECT pg_notify('risk_rules', '')`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  };
  // the decision alone, in this process: what the rules add to each authorization's CPU
  const compiled = rules.map((rule, i) =>
    compileRule({ id: i + 1, ...normalizeRule(rule as RiskRuleInput) }),
  );
  const facts = {
    method: 'CREDIT_CARD' as const,
    amountCents: CARD_SALE.amount,
    email: CARD_SALE.customer.email,
    document: CARD_SALE.customer.document,
    ip: '127.0.0.1',
    card: { bin: '411111', fingerprint: 'f'.repeat(64) },
  };
  const runs = 100_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) decide(compiled, facts);
  const micros = Number(process.hrtime.bigint() - started) / 1000 / runs;
  console.log(
    `  one decision with ${RULES} rules, each read whole: ${micros.toFixed(1)} µs (in this process)`,
  );
  const r = await measureInterleaved(authorize, ops, ROUNDS, SECONDS, {
    target: writeRules,
    baseline: noRules,
  });
  const refused = await server.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM sales WHERE risk IS NOT NULL',
  );
  console.log(
    `  rules in force during target rounds: ${RULES} (${(await listRiskRules(server.db)).length} at the end)`,
  );
  console.log(
    `  sales a rule decided: ${refused[0]!.n} (expected 0: every rule misses by its last condition)`,
  );
  console.log(`  rounds (target / baseline either side): ${r.ratios.map((x) => x.toFixed(3)).join(' ')}`);
  console.log(
    `  cost ratio (time per authorization with ${RULES} rules ÷ with none): ${(1 / r.ratio).toFixed(3)}  (goal <= 1.1)`,
  );
  if (next > tokens.length)
    console.log(`  (${next - tokens.length} requests reused a spent token: raise BENCH_CARD_RATE)`);
  printRow({
    name: `POST /api/transactions CREDIT_CARD (sandbox acquirer) with ${RULES} risk rules in force, each read whole`,
    target: r.target,
    baselineName: `the same with no rule; ${ROUNDS} target rounds alternated with ${ROUNDS + 1} of it; ratio = median of each round against the two around it`,
    baseline: r.baseline,
    ratio: r.ratio,
    goal: 1 / 1.1,
    unit: 'card authorizations',
  });
}

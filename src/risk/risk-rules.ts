import type { Logger } from 'pino';
import type { Db } from '../platform/db/db.js';
import { isDatabaseUnavailable } from '../platform/db/unavailable.js';
import { listRiskRules, RISK_RULES_CHANNEL } from './data.js';
import { type CompiledRule, compileRule, decide, type RiskDecision, type RiskFacts } from './rules.js';

/**
 * The rules in force, kept in every process's memory so that deciding a sale costs no round trip: loaded at
 * start, loaded again when a change is announced on RISK_RULES_CHANNEL (or notifications may have been
 * missed), and at once by the process that made the change, before it answers.
 */
export class RiskRules {
  private rules: readonly CompiledRule[] = [];
  private unlisten: (() => Promise<void>) | null = null;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly log?: Logger,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(RISK_RULES_CHANNEL, () => {
      this.reload().catch((err: unknown) => {
        // the database lost (a failover): its own log line says so once, and the listener's reconnection
        // reloads the rules; a reload failing for another reason is said
        if (isDatabaseUnavailable(err)) return;
        this.log?.warn({ err: (err as Error).message }, 'risk rules not reloaded: the ones in force stay');
      });
    });
    await this.reload();
  }

  /** Reads the rules again; calls made meanwhile share one read that starts after them. */
  async reload(): Promise<void> {
    const run = async () => {
      const views = await listRiskRules(this.db);
      this.rules = views.map(compileRule);
    };
    const previous = this.loading ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    this.loading = next;
    try {
      await next;
    } finally {
      if (this.loading === next) this.loading = null;
    }
  }

  decide(facts: RiskFacts): RiskDecision {
    return this.rules.length === 0 ? { decision: 'allow', rule: null } : decide(this.rules, facts);
  }

  get count(): number {
    return this.rules.length;
  }

  async close(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
  }
}

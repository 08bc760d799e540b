import type { EventFeed } from '../events/index.js';
import type { StreamRow } from '../webhooks/index.js';

/** What a payer's page learns of its sale: paid, or ended unpaid (cancelled, refused). */
export type SaleOutcome = 'paid' | 'ended';

/** The facts that end a payer's wait, and what each tells. */
const OUTCOMES: Readonly<Record<string, SaleOutcome>> = {
  'sale.paid': 'paid',
  'sale.canceled': 'ended',
  'sale.refused': 'ended',
};

/**
 * Tells the payers' open pages when their sale is paid, or can no longer be (cancelled by the merchant, or
 * because the session was paid another way; refused). All of them together are one listener of the process's
 * event feed (src/events/feed.ts), joined while any page waits: no page reads the database to learn of its
 * outcome; the feed's batch is looked up by sale uuid, parsing only those facts.
 */
export class PaidSales {
  private readonly waiting = new Map<string, Set<(outcome: SaleOutcome) => void>>();
  private membership: Promise<{ leave: () => void }> | null = null;

  constructor(private readonly feed: EventFeed) {}

  /**
   * Calls `told` with its outcome when a `sale.paid`, `sale.canceled` or `sale.refused` fact of the sale `uuid`
   * that was not yet final when this resolved becomes final. Whoever waits reads the sale once after this
   * resolves: an outcome final before then is in the database already. Returns how to stop waiting.
   */
  async watch(uuid: string, told: (outcome: SaleOutcome) => void): Promise<() => void> {
    let listeners = this.waiting.get(uuid);
    if (!listeners) {
      listeners = new Set();
      this.waiting.set(uuid, listeners);
    }
    listeners.add(told);
    const stop = () => {
      listeners.delete(told);
      if (listeners.size === 0 && this.waiting.get(uuid) === listeners) this.waiting.delete(uuid);
      this.leaveWhenIdle();
    };
    try {
      await this.joined();
    } catch (err) {
      stop();
      throw err;
    }
    return stop;
  }

  /** Sales being waited for (the metrics and tests read it). */
  get size(): number {
    return this.waiting.size;
  }

  private joined(): Promise<{ leave: () => void }> {
    if (!this.membership) {
      const joining = this.feed.join((rows) => this.tell(rows));
      this.membership = joining;
      joining.catch(() => {
        if (this.membership === joining) this.membership = null;
      });
    }
    return this.membership;
  }

  private leaveWhenIdle(): void {
    if (this.waiting.size > 0 || !this.membership) return;
    const membership = this.membership;
    this.membership = null;
    membership.then(
      ({ leave }) => leave(),
      () => undefined,
    );
  }

  private tell(rows: StreamRow[]): void {
    if (this.waiting.size === 0) return;
    for (const row of rows) {
      const outcome = OUTCOMES[row.event_type];
      if (!outcome) continue;
      const listeners = this.waiting.get(saleUuidOf(row.webhook_body));
      if (listeners) for (const told of [...listeners]) told(outcome);
    }
  }
}

/** The sale's uuid in a sale notification's body (src/sales/settlement/notifications.ts). */
function saleUuidOf(body: string): string {
  const uuid = (JSON.parse(body) as { uuid?: unknown }).uuid;
  return typeof uuid === 'string' ? uuid : '';
}

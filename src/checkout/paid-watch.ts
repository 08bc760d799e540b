import type { EventFeed } from '../events/index.js';
import type { StreamRow } from '../webhooks/index.js';

/**
 * Tells the payers' open pages when their sale is paid. All of them together are one listener of the
 * process's event feed (src/events/feed.ts), joined while any page waits: no page reads the database to
 * learn of its payment; the feed's batch is looked up by sale uuid, parsing only `sale.paid` facts.
 */
export class PaidSales {
  private readonly waiting = new Map<string, Set<() => void>>();
  private membership: Promise<{ leave: () => void }> | null = null;

  constructor(private readonly feed: EventFeed) {}

  /**
   * Calls `paid` when a `sale.paid` fact of the sale `uuid` that was not yet final when this resolved
   * becomes final. Whoever waits reads the sale once after this resolves: a payment final before then is
   * in the database already. Returns how to stop waiting.
   */
  async watch(uuid: string, paid: () => void): Promise<() => void> {
    let listeners = this.waiting.get(uuid);
    if (!listeners) {
      listeners = new Set();
      this.waiting.set(uuid, listeners);
    }
    listeners.add(paid);
    const stop = () => {
      listeners.delete(paid);
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
      if (row.event_type !== 'sale.paid') continue;
      const listeners = this.waiting.get(saleUuidOf(row.webhook_body));
      if (listeners) for (const paid of [...listeners]) paid();
    }
  }
}

/** The sale's uuid in a sale notification's body (src/sales/settlement/notifications.ts). */
function saleUuidOf(body: string): string {
  const uuid = (JSON.parse(body) as { uuid?: unknown }).uuid;
  return typeof uuid === 'string' ? uuid : '';
}

import type { Logger } from 'pino';
import type { Db } from '../platform/db/db.js';
import { isDatabaseUnavailable } from '../platform/db/unavailable.js';
import { canonicalIp } from '../platform/net/ip.js';
import { recordLastUses } from './credentials.data.js';

const FLUSH_EVERY_MS = 5_000;

/**
 * Remembers each key's latest use in memory and writes them all in one statement every few seconds, so a
 * request never waits on (or pays for) a write. A crash loses at most the last few seconds of "last used".
 */
export class LastUseRecorder {
  private pending = new Map<number, { at: number; ip: string | null }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  note(credentialId: number, ip: string | null): void {
    this.pending.set(credentialId, { at: Date.now(), ip });
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await recordLastUses(
        this.db,
        [...batch].map(([id, use]) => ({
          id,
          at: new Date(use.at),
          ip: use.ip === null ? null : (canonicalIp(use.ip) ?? use.ip),
        })),
      );
    } catch (err) {
      if (!isDatabaseUnavailable(err))
        this.log.warn({ err, keys: batch.size }, 'could not record API keys last use');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

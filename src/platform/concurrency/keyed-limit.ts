import pLimit, { type LimitFunction } from 'p-limit';

/**
 * A p-limit line per key (e.g. per account): one tenant's flood of expensive requests waits in its own line,
 * first come first served, and holds at most `slots` database connections and result sets at once, whatever
 * it sends. A key's line is dropped once nothing runs or waits in it.
 */
export class KeyedLimit<K> {
  private readonly lines = new Map<K, { limit: LimitFunction; users: number }>();

  constructor(private readonly slots: number) {}

  async run<T>(key: K, task: () => Promise<T>): Promise<T> {
    let line = this.lines.get(key);
    if (!line) {
      line = { limit: pLimit(this.slots), users: 0 };
      this.lines.set(key, line);
    }
    line.users++;
    try {
      return await line.limit(task);
    } finally {
      if (--line.users === 0) this.lines.delete(key);
    }
  }
}

/**
 * At most `slots` tasks run at once; the others wait in arrival order (first come, first served), so a task
 * queued behind a flood is reached after what came before it, never starved by what comes later.
 */
export class FifoGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly slots: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }
}

/**
 * A FifoGate per key (e.g. per account): one tenant's flood of expensive requests waits in its own line and
 * holds at most `slots` database connections and result sets at once, whatever it sends.
 */
export class KeyedGate<K> {
  private readonly gates = new Map<K, { gate: FifoGate; users: number }>();

  constructor(private readonly slots: number) {}

  async run<T>(key: K, task: () => Promise<T>): Promise<T> {
    let entry = this.gates.get(key);
    if (!entry) {
      entry = { gate: new FifoGate(this.slots), users: 0 };
      this.gates.set(key, entry);
    }
    entry.users++;
    try {
      return await entry.gate.run(task);
    } finally {
      if (--entry.users === 0) this.gates.delete(key);
    }
  }
}

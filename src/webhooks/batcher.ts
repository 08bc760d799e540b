/**
 * Groups items that arrive while flushes are running into the next flush: one statement for many items under
 * load, no added wait when idle (an item arriving at rest is flushed at once). Up to `parallel` flushes run
 * at once, so one slow statement does not hold every later item back.
 */
export class Batcher<T> {
  private queue: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private running = 0;

  constructor(
    private readonly flush: (items: T[]) => Promise<void>,
    private readonly maxSize: number,
    private readonly parallel = 1,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.running < this.parallel) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running++;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxSize);
      try {
        await this.flush(batch.map((b) => b.item));
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.running--;
  }
}

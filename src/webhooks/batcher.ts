/**
 * Groups items that arrive while a flush is running into the next flush: one statement for many items under
 * load, no added wait when idle (an item arriving at rest is flushed at once).
 */
export class Batcher<T> {
  private queue: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private flushing = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<void>,
    private readonly maxSize: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxSize);
      try {
        await this.flush(batch.map((b) => b.item));
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.flushing = false;
  }
}

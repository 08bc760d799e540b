/**
 * The median of the last few durations of one kind of work, for answers that must take as long as that work
 * whether or not it was done (an answer that would otherwise tell whether an address exists).
 */
export class RecentDurations {
  private readonly samples: number[] = [];

  constructor(
    private readonly keep = 31,
    /** Assumed until the first sample. */
    private readonly initialMs = 0,
  ) {}

  add(ms: number): void {
    this.samples.push(ms);
    if (this.samples.length > this.keep) this.samples.shift();
  }

  median(): number {
    if (this.samples.length === 0) return this.initialMs;
    const sorted = [...this.samples].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }

  /** Waits until `startedAt` (performance.now()) is the median ago; at once when it already is. */
  async padSince(startedAt: number): Promise<void> {
    const rest = this.median() - (performance.now() - startedAt);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
}

/**
 * In-process word that a transaction which recorded notification facts has committed, so that this process's
 * delivery dispatcher fans them out now rather than at its next idle poll. Facts committed by other processes
 * are still found by that poll.
 */
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();

  committed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

/**
 * Open payment streams per source address (CHECKOUT_STREAMS_PER_IP; 0: no cap). A payer needs one; the cap
 * leaves room for several payers behind one address (a household, a carrier's NAT) and keeps one client from
 * holding connections by the thousand.
 */
export class StreamsPerAddress {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  /** A place for one more stream of `address`, released by the function returned; null when it has none left. */
  take(address: string): (() => void) | null {
    const count = this.open.get(address) ?? 0;
    if (this.max > 0 && count >= this.max) return null;
    this.open.set(address, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(address) ?? 1) - 1;
      if (left <= 0) this.open.delete(address);
      else this.open.set(address, left);
    };
  }
}

/** Answers with files a process reads at once, whichever accounts send them. */
export const UPLOADS_AT_ONCE = 4;
/** Answers with files one account sends at once, per process. */
export const UPLOADS_PER_ACCOUNT = 1;

/**
 * Room for the answers being read (each holds one file in memory, and a database connection while its
 * transaction waits for the next part): a process reads at most UPLOADS_AT_ONCE, an account at most
 * UPLOADS_PER_ACCOUNT of them. One who finds no room is refused at once, before its body is read.
 */
export class UploadSlots {
  private readonly perAccount = new Map<number, number>();
  private total = 0;

  constructor(
    private readonly atOnce = UPLOADS_AT_ONCE,
    private readonly perAccountMax = UPLOADS_PER_ACCOUNT,
  ) {}

  /** A slot for the account's upload, released by the function returned; why there is none otherwise. */
  take(accountId: number): (() => void) | 'account' | 'process' {
    const mine = this.perAccount.get(accountId) ?? 0;
    if (mine >= this.perAccountMax) return 'account';
    if (this.total >= this.atOnce) return 'process';
    this.perAccount.set(accountId, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perAccount.get(accountId) ?? 1) - 1;
      if (left <= 0) this.perAccount.delete(accountId);
      else this.perAccount.set(accountId, left);
    };
  }
}

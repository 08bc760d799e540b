import { HttpError } from './errors.js';

/** Uploads a process reads at once, whichever accounts send them (dispute evidence's default). */
export const UPLOADS_AT_ONCE = 4;
/** Uploads one account sends at once, per process (dispute evidence's default). */
export const UPLOADS_PER_ACCOUNT = 1;
/** When an upload refused for want of room may be sent again. */
export const UPLOAD_RETRY_AFTER_SECONDS = 5;

/**
 * Room for the uploads being read (each holds its file in memory, and may hold a database connection while it
 * is read): a process reads at most `atOnce`, an account at most `perAccountMax` of them. One who finds no
 * room is refused at once, before its body is read. Each kind of upload (dispute evidence, onboarding
 * documents) keeps its own room, sized by what one of its uploads holds.
 */
export class UploadSlots {
  private readonly perAccount = new Map<number, number>();
  private total = 0;

  constructor(
    readonly atOnce = UPLOADS_AT_ONCE,
    readonly perAccountMax = UPLOADS_PER_ACCOUNT,
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

  /**
   * A slot for the account's upload, or the refusal an HTTP route answers: 429 `RATE_LIMITED` when the
   * account's own upload is being read (`what` names it: "Another answer of this account is being sent"),
   * 503 `SERVICE_UNAVAILABLE` when the process has no room; both with `retry-after`.
   */
  takeOrRefuse(accountId: number, what: { account: string; process: string }): () => void {
    const slot = this.take(accountId);
    if (slot === 'account') {
      throw new HttpError('RATE_LIMITED', what.account, undefined, {
        'retry-after': String(UPLOAD_RETRY_AFTER_SECONDS),
        'ratelimit-limit': String(this.perAccountMax),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(UPLOAD_RETRY_AFTER_SECONDS),
      });
    }
    if (slot === 'process') {
      throw new HttpError('SERVICE_UNAVAILABLE', what.process, undefined, {
        'retry-after': String(UPLOAD_RETRY_AFTER_SECONDS),
      });
    }
    return slot;
  }
}

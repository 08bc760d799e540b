/**
 * A gateway that logs a fault the test did not provoke has failed the test. Every gateway the test support
 * starts (in this process or as a child) feeds its log lines to a LogWatch; after each test (test/support/
 * clean-logs.ts) and when the gateway stops, the faults nobody declared fail the test, with their lines.
 *
 * A fault is a line at error level or above, or a warning whose message is in FAULT_WARNINGS: a background round
 * of the gateway's own that failed. Warnings about the outside world (a receiver down, an SMTP server down, a
 * provider refusing) are the gateway doing its job, and are not faults.
 */
export const FAULT_WARNINGS: readonly string[] = [
  'idempotency key cleanup failed',
  'processor callback cleanup failed',
  'sale status refresh failed; will retry',
  'bcb refund read-back failed',
  'refund hold check failed',
  'expired session and login-failure cleanup failed',
  'notification retention prune failed',
  'auth change not acknowledged by every process within the wait',
  'could not wait for an auth change to reach every process',
  'could not record API keys last use',
  'reconciliation with the PSP failed; tried again at the next turn',
  'event feed read failed; trying again',
  'event stream backlog failed; the client resumes',
  'could not hand back claimed attempts; their leases will run out',
  'delivery dispatch failed; retrying',
  'could not hand back attempts of a slow host; their leases will run out',
  'notification sweep failed',
  'pending withdrawal requeue failed; will retry',
  'payout reconciliation failed; will retry',
  'overdue withdrawal read-back failed; will retry',
  'approval expiry failed; will retry',
  'answered an error code missing from the route’s catalogue',
];

const ERROR_LEVEL = 50;
const WARN_LEVEL = 40;
const faultWarnings = new Set(FAULT_WARNINGS);

interface LogLine {
  level: number;
  msg: string;
  /** The message of the error it carries, if any. */
  detail: string;
  text: string;
}

export class LogWatch {
  private pending = '';
  private faults: LogLine[] = [];
  private readonly expected: RegExp[] = [];

  constructor(readonly name: string) {
    live.add(this);
  }

  /**
   * Declares a fault this gateway will log because the test provokes it (for the rest of its life): lines whose
   * message, error message or text match are not failures.
   */
  expect(pattern: RegExp | string): void {
    this.expected.push(typeof pattern === 'string' ? new RegExp(literally(pattern)) : pattern);
  }

  /** Output of the gateway: whole JSON lines are read, a partial one waits for its end. */
  write(chunk: string | Buffer): void {
    this.pending += chunk.toString();
    let end = this.pending.indexOf('\n');
    while (end >= 0) {
      this.read(this.pending.slice(0, end));
      this.pending = this.pending.slice(end + 1);
      end = this.pending.indexOf('\n');
    }
  }

  private read(text: string): void {
    if (!text.startsWith('{')) return;
    let line: { level?: unknown; msg?: unknown; err?: { message?: unknown } };
    try {
      line = JSON.parse(text);
    } catch {
      return;
    }
    const level = typeof line.level === 'number' ? line.level : 0;
    const msg = typeof line.msg === 'string' ? line.msg : '';
    const fault = level >= ERROR_LEVEL || (level === WARN_LEVEL && faultWarnings.has(msg));
    const detail = typeof line.err?.message === 'string' ? line.err.message : '';
    if (fault) this.faults.push({ level, msg, detail, text });
  }

  /** The undeclared faults logged since the last call. */
  takeUnexpected(): string[] {
    const found = this.faults.filter(
      (f) => !this.expected.some((p) => p.test(f.msg) || p.test(f.detail) || p.test(f.text)),
    );
    this.faults = [];
    return found.map((f) => f.text);
  }

  /** Stops watching; throws when undeclared faults were logged since the last check. */
  end(): void {
    if (this.pending) this.write('\n');
    live.delete(this);
    failOn([this]);
  }
}

const live = new Set<LogWatch>();

/** Throws when a live gateway logged undeclared faults since the last check (run after each test). */
export function checkLiveLogs(): void {
  failOn([...live]);
}

function failOn(watches: LogWatch[]): void {
  const report = watches.flatMap((w) => w.takeUnexpected().map((line) => `  ${w.name}: ${line}`));
  if (report.length > 0) {
    throw new Error(
      `the gateway logged ${report.length} fault(s) the test did not declare (logs.expect(...) where it is provoked):\n${report.join('\n')}`,
    );
  }
}

const literally = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

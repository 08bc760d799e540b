import { randomBytes } from 'node:crypto';
import { settingOrInitial, settingSql } from '../../accounts/index.js';
import { checkTimestamped, signTimestamped } from '../../platform/crypto/timestamped-signature.js';
import type { Db } from '../../platform/db/db.js';
import { unauthorized, validation } from '../../platform/errors/app-error.js';
import { isUuid } from '../../platform/ids/public-ids.js';
import type {
  Headers,
  PayoutCheck,
  PayoutOrder,
  PayoutProvider,
  PayoutResult,
  Submitted,
} from './provider.js';
import { ProviderUnavailable } from './provider.js';

const SECRET_SETTING = 'sandbox_payouts_secret';

/**
 * The sandbox payout provider: keeps its payouts in `sandbox_payouts` (one row per reference, however many
 * times submitted), and signs its callbacks like a real provider would: header X-Sandbox-Signature =
 * "sha256=" + hex HMAC-SHA256(secret, "<X-Sandbox-Timestamp>.<raw body>"). The secret is generated once
 * into the settings table (shared by every process on the database). Setting `sandbox_payouts` = `down`
 * simulates an outage.
 */
export class SandboxPayoutProvider implements PayoutProvider {
  readonly name = 'sandbox';
  readonly callbacks = true;
  private secret: string | undefined;

  constructor(private readonly db: Db) {}

  async submit(order: PayoutOrder): Promise<Submitted> {
    const [sent] = await this.submitBatch([order]);
    return sent!;
  }

  /**
   * One round trip for any number of orders, as a batch payout API takes them: record each payout (or count
   * a repeat of its reference) unless the provider is down, in which case none is taken.
   */
  async submitBatch(orders: PayoutOrder[]): Promise<Submitted[]> {
    if (new Set(orders.map((o) => o.reference)).size !== orders.length) {
      throw new Error('a payout batch names one reference twice');
    }
    const rows = await this.db.query<{ reference: string; external_id: string }>(
      `INSERT INTO sandbox_payouts (reference, external_id, amount, pix_key, pix_key_type)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::text[])
        WHERE ${settingSql('sandbox_payouts')} IS DISTINCT FROM 'down'
       ON CONFLICT (reference) DO UPDATE SET submissions = sandbox_payouts.submissions + 1
       RETURNING reference, external_id`,
      [
        orders.map((o) => o.reference),
        orders.map(() => `sbx_${randomBytes(12).toString('hex')}`),
        orders.map((o) => o.amountCents),
        orders.map((o) => o.pixKey),
        orders.map((o) => o.pixKeyType),
      ],
    );
    if (rows.length === 0) throw new ProviderUnavailable('sandbox payout provider is unreachable');
    const byReference = new Map(rows.map((r) => [r.reference, r.external_id]));
    return orders.map((o) => {
      const externalId = byReference.get(o.reference.toLowerCase());
      if (externalId === undefined) throw new Error(`the sandbox took no payout ${o.reference}`);
      return { externalId };
    });
  }

  /**
   * The provider pays or refuses one of its payouts (once: a payout decided keeps its result), and returns the
   * callback it POSTs about it (that callback may be lost on its way, and `check` still finds the result) and
   * whether this call is what decided it.
   */
  async decide(
    reference: string,
    result: PayoutResult['result'],
  ): Promise<{ body: string; headers: Record<string, string>; decidedNow: boolean }> {
    const decided = await this.db.query(
      'UPDATE sandbox_payouts SET result = $2 WHERE reference = $1 AND result IS NULL RETURNING 1',
      [reference, result],
    );
    const [row] = await this.db.query<{ result: PayoutResult['result'] | null }>(
      'SELECT result FROM sandbox_payouts WHERE reference = $1',
      [reference],
    );
    return {
      ...(await this.signedCallback(reference, row?.result ?? result)),
      decidedNow: decided.length > 0,
    };
  }

  async check(order: PayoutOrder): Promise<PayoutCheck> {
    const [row] = await this.db.query<{ external_id: string; result: PayoutResult['result'] | null }>(
      'SELECT external_id, result FROM sandbox_payouts WHERE reference = $1',
      [order.reference],
    );
    if (!row) return { state: 'MISSING' };
    if (row.result === null) return { state: 'PROCESSING' };
    return { state: row.result, externalId: row.external_id };
  }

  /** What the provider would POST to the callback URL for one of its payouts. */
  async signedCallback(
    reference: string,
    result: PayoutResult['result'],
  ): Promise<{ body: string; headers: Record<string, string> }> {
    const [payout] = await this.db.query<{ external_id: string }>(
      'SELECT external_id FROM sandbox_payouts WHERE reference = $1',
      [reference],
    );
    if (!payout) throw new Error(`the sandbox provider has no payout ${reference}`);
    const body = JSON.stringify({ reference, externalId: payout.external_id, result });
    const timestamp = String(Math.floor(Date.now() / 1000));
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-sandbox-timestamp': timestamp,
        'x-sandbox-signature': await this.sign(timestamp, body),
      },
    };
  }

  async sign(timestamp: string, body: string | Buffer): Promise<string> {
    return signTimestamped(await this.loadSecret(), timestamp, body);
  }

  async verifyCallback(rawBody: Buffer, headers: Headers): Promise<PayoutResult> {
    const secret = await this.loadSecret();
    const { 'x-sandbox-timestamp': timestamp, 'x-sandbox-signature': signature } = headers;
    const check = checkTimestamped(secret, timestamp, signature, rawBody, Date.now());
    if (check === 'missing') throw unauthorized('Missing provider signature');
    if (check === 'invalid') throw unauthorized('Invalid provider signature');
    if (check === 'stale') throw unauthorized('Provider signature timestamp is too old');
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw validation('Callback body is not JSON');
    }
    const p = parsed as Partial<PayoutResult>;
    if (
      typeof p.reference !== 'string' ||
      !isUuid(p.reference) ||
      typeof p.externalId !== 'string' ||
      (p.result !== 'COMPLETED' && p.result !== 'REJECTED')
    ) {
      throw validation('Callback body must be {reference, externalId, result: COMPLETED|REJECTED}');
    }
    return { reference: p.reference.toLowerCase(), externalId: p.externalId, result: p.result };
  }

  private async loadSecret(): Promise<string> {
    if (this.secret) return this.secret;
    this.secret = await settingOrInitial(this.db, SECRET_SETTING, randomBytes(32).toString('base64url'));
    return this.secret;
  }
}

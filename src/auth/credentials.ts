import { type Actor, recordAudit } from '../audit/index.js';
import { hashSecret, newToken } from '../platform/crypto/secrets.js';
import { isForeignKeyViolation } from '../platform/db/advisory-lock.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, notFound, validation } from '../platform/errors/app-error.js';
import { nameProblem } from '../platform/text/names.js';
import { isRealCalendarTime } from '../platform/time/calendar.js';
import { type AuthCache, notifyAuthChange } from './auth-cache.js';
import * as data from './credentials.data.js';
import { isKeyScope, type KeyScope, scopeCovers, widestKeyScope } from './key-scopes.js';
import type { Role } from './roles.js';

export interface IssuedCredential {
  id: number;
  name: string;
  scope: KeyScope;
  publicKey: string;
  privateKey: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface CredentialView {
  id: number;
  name: string;
  scope: KeyScope;
  publicKey: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
  /** The team member who made it or last narrowed it (null: an operator's command, or a member removed). */
  createdBy: string | null;
  /** Wider than what its creator may do now (demoted or removed): an owner or admin should roll, narrow or revoke it. */
  needsReview: boolean;
}

/** The panel user making or changing a key; absent for an operator's command, which may make any scope. */
export interface KeyCreator {
  userId: number;
  role: Role;
}

export interface CredentialRequest {
  name?: string;
  scope?: string;
  expiresAt?: string;
}

const MAX_NAME = 100;
export const MAX_GRACE_HOURS = 168;
/**
 * Live key pairs an account may hold (revoked and expired ones do not count; a rolled one counts until its
 * grace ends). Each pair is a separate per-key rate limit, so the cap also bounds what one account can spend.
 */
export const MAX_LIVE_KEYS_PER_ACCOUNT = 20;

const tooManyKeys = (extra = '') =>
  new AppError(
    'TOO_MANY_KEYS',
    `An account can have at most ${MAX_LIVE_KEYS_PER_ACCOUNT} active API key pairs; revoke one first${extra}`,
  );

export class CredentialService {
  /** Without a cache (scripts, benchmarks) changes still notify every server process. */
  constructor(
    private readonly db: Db,
    private readonly cache?: AuthCache,
  ) {}

  /** 192 random bits in each key; the private key leaves only in this return value. */
  async issue(
    accountId: number,
    request: CredentialRequest = {},
    actor?: Actor,
    creator?: KeyCreator,
  ): Promise<IssuedCredential> {
    const spec = parseRequest(request, creator);
    let seq = 0;
    const issued = await this.db.tx(async (tx) => {
      const live = await data.lockAndCountLiveCredentials(tx, accountId);
      if (live >= MAX_LIVE_KEYS_PER_ACCOUNT) throw tooManyKeys();
      const made = await insertPair(tx, accountId, spec).catch((err: unknown) => {
        throw isForeignKeyViolation(err) ? notFound(`no account with id ${accountId}`) : err;
      });
      seq = made.seq;
      if (actor) {
        await recordAudit(tx, accountId, actor, {
          action: 'credential.created',
          target: `credential:${made.id}`,
        });
      }
      return made.issued;
    });
    await this.cache?.awaitPropagation(seq);
    return issued;
  }

  /**
   * A new pair with the same name and scope; the old one keeps working for `graceHours` (0: stops at once)
   * and is then refused like an expired key, on every process (the change is propagated before answering).
   */
  async roll(
    accountId: number,
    id: number,
    graceHours: number,
    actor: Actor,
    creator?: KeyCreator,
  ): Promise<IssuedCredential> {
    if (!Number.isInteger(graceHours) || graceHours < 0 || graceHours > MAX_GRACE_HOURS) {
      throw validation(`graceHours must be a whole number from 0 to ${MAX_GRACE_HOURS}`);
    }
    let seq = 0;
    const issued = await this.db.tx(async (tx) => {
      const live = await data.lockAndCountLiveCredentials(tx, accountId);
      const old = await data.lockLiveCredential(tx, accountId, id);
      if (!old) throw notFound('No such active credential');
      if (old.rolled_to !== null) throw validation('This credential was rolled already; roll its successor');
      if (creator) assertWithin(creator, old.scope);
      // a roll with a grace keeps the old pair live beside the new one (rolling in a loop would otherwise
      // pile up pairs); with graceHours 0 the old one stops at once and the count stays
      if (graceHours > 0 && live >= MAX_LIVE_KEYS_PER_ACCOUNT) {
        throw tooManyKeys(', or roll with graceHours 0');
      }
      const made = await insertPair(tx, accountId, {
        name: old.name,
        scope: old.scope,
        expiresAt: null,
        createdByUserId: creator?.userId ?? null,
      });
      await data.markRolled(tx, old.id, made.id, graceHours);
      seq = await notifyAuthChange(tx, `key:${old.public_key}`);
      await recordAudit(tx, accountId, actor, {
        action: 'credential.rolled',
        target: `credential:${old.id}`,
      });
      return made.issued;
    });
    await this.cache?.awaitPropagation(seq);
    return issued;
  }

  async list(accountId: number): Promise<CredentialView[]> {
    const rows = await data.listCredentials(this.db, accountId);
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      scope: r.scope,
      publicKey: r.public_key,
      createdAt: r.created_at.toISOString(),
      expiresAt: r.expires_at?.toISOString() ?? null,
      lastUsedAt: r.last_used_at?.toISOString() ?? null,
      lastUsedIp: r.last_used_ip,
      createdBy: r.creator_email,
      needsReview: needsReview(r),
    }));
  }

  /**
   * Narrows a live key in place (a scope no wider than it has, within the user's own): it keeps its pair, and
   * the user becomes its creator, which settles a review. Only a user who could have made the key as it is may
   * (a developer narrows `charges` keys, never a `full` one: 403, nothing changed).
   */
  async narrow(
    accountId: number,
    id: number,
    scope: string,
    actor: Actor,
    creator: KeyCreator,
  ): Promise<CredentialView> {
    if (!isKeyScope(scope)) throw validation('scope must be "read", "charges" or "full"');
    assertWithin(creator, scope);
    let seq = 0;
    const changed = await this.db.tx(async (tx) => {
      const old = await data.lockLiveCredential(tx, accountId, id);
      if (!old) throw notFound('No such active credential');
      // changed, as revoked, only by someone who could have made it as it is: narrowing a full key to read
      // and then revoking it would otherwise be a developer revoking a full key
      if (isKeyScope(old.scope)) assertWithin(creator, old.scope, 'change');
      if (!scopeCovers(old.scope, scope)) {
        throw validation(`A key can only be narrowed: this one is "${old.scope}"; make a new key instead`);
      }
      const row = await data.setScope(tx, old.id, scope, creator.userId);
      seq = await notifyAuthChange(tx, `key:${old.public_key}`);
      await recordAudit(tx, accountId, actor, {
        action: 'credential.narrowed',
        target: `credential:${old.id}`,
      });
      return row;
    });
    await this.cache?.awaitPropagation(seq);
    const view = (await this.list(accountId)).find((c) => c.id === Number(changed.id));
    if (!view) throw notFound('No such active credential');
    return view;
  }

  /**
   * Revokes a key, at once on every process. Only someone who could have made it may (a developer revokes `read`
   * and `charges` keys, never a `full` one: 403, nothing changed); `creator` null: an operator's command.
   */
  async revoke(accountId: number, id: number, actor: Actor, creator: KeyCreator | null): Promise<void> {
    let seq = 0;
    const revoked = await this.db.tx(async (tx) => {
      const scope = await data.lockUnrevokedScope(tx, accountId, id);
      if (scope !== null && creator && isKeyScope(scope)) assertWithin(creator, scope, 'revoke');
      const publicKey = await data.revokeCredential(tx, accountId, id);
      if (publicKey) {
        seq = await notifyAuthChange(tx, `key:${publicKey}`);
        await recordAudit(tx, accountId, actor, { action: 'credential.revoked', target: `credential:${id}` });
      }
      return publicKey;
    });
    // answers only once every server process has dropped the key: the caller's next request fails anywhere
    await this.cache?.awaitPropagation(seq);
    if (!revoked) throw notFound('No such active credential');
  }
}

async function insertPair(tx: Queryable, accountId: number, spec: data.NewCredential) {
  const publicKey = newToken('pk_', 24);
  const privateKey = newToken('sk_', 24);
  const row = await data.insertCredential(tx, accountId, publicKey, hashSecret(privateKey), spec);
  const seq = await notifyAuthChange(tx, `key:${publicKey}`); // drops any cached "unknown key" answer
  const issued: IssuedCredential = {
    id: Number(row.id),
    name: row.name,
    scope: row.scope,
    publicKey,
    privateKey,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
  };
  return { id: Number(row.id), seq, issued };
}

/** A user may make, roll or revoke a key only of a scope within their own role (403, nothing written). */
function assertWithin(
  creator: KeyCreator,
  scope: KeyScope,
  verb: 'make' | 'revoke' | 'change' = 'make',
): void {
  const widest = widestKeyScope(creator.role);
  if (widest === null || !scopeCovers(widest, scope)) {
    throw new AppError(
      'FORBIDDEN',
      widest === null
        ? `Your role (${creator.role}) may not ${verb} API keys`
        : `Your role (${creator.role}) may ${verb} keys of scope "${widest}" at most, not "${scope}"; ask an owner or admin`,
    );
  }
}

/** A live key wider than its creator may make now: an expired one opens nothing, and needs no review. */
function needsReview(r: data.ListedCredentialRow, now = Date.now()): boolean {
  if (!r.created_by_user) return false;
  if (r.expires_at !== null && r.expires_at.getTime() <= now) return false;
  const widest = r.creator_role === null ? null : widestKeyScope(r.creator_role);
  return widest === null || !scopeCovers(widest, r.scope);
}

function parseRequest(r: CredentialRequest, creator?: KeyCreator): data.NewCredential {
  const name = (r.name ?? '').trim();
  const problem = nameProblem(name, { maxLength: MAX_NAME, allowEmpty: true });
  if (problem) throw validation(`name ${problem}`);
  if (r.scope !== undefined && !isKeyScope(r.scope)) {
    throw validation('scope must be "read", "charges" or "full"');
  }
  // without a scope: the widest the creator may have
  const scope: KeyScope = r.scope ?? (creator ? (widestKeyScope(creator.role) ?? 'read') : 'full');
  if (creator) assertWithin(creator, scope);
  let expiresAt: Date | null = null;
  if (r.expiresAt !== undefined && r.expiresAt !== null) {
    const ms = Date.parse(r.expiresAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(r.expiresAt) || Number.isNaN(ms) || !isRealCalendarTime(r.expiresAt)) {
      throw validation('expiresAt must be an ISO 8601 date-time, e.g. 2027-01-31T23:59:59-03:00');
    }
    if (ms <= Date.now()) throw validation('expiresAt must be in the future');
    expiresAt = new Date(ms);
  }
  return { name, scope, expiresAt, createdByUserId: creator?.userId ?? null };
}

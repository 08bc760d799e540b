import { randomUUID } from 'node:crypto';
import type { Queryable } from '../platform/db/db.js';
import { MAX_CHARGE_CENTS } from '../platform/money/money.js';
import { nameProblem } from '../platform/text/names.js';
import { checkChargesOf, linkUses } from '../sales/index.js';
import { CheckoutInputError, CheckoutNotFound } from './errors.js';
import {
  type CheckoutMethod,
  findLink,
  insertLink,
  type LinkRow,
  listLinks,
  setLinkActive,
} from './links.data.js';
import { refuseBeyondMethods, refuseUntaken, type TakenMethods } from './methods.js';
import { newSlug } from './slugs.js';
import { returnUrl } from './urls.js';

/** A payment link as the merchant asks for it (the routes' schema checked each field's type and range). */
export interface LinkInput {
  title: string;
  description?: string;
  amountCents?: number;
  minCents?: number;
  maxCents?: number;
  methods: CheckoutMethod[];
  maxInstallments?: number;
  expiresAt?: string;
  maxUses?: number;
  successUrl?: string;
  metadata?: Record<string, string>;
  /** Split payments: every sale of the link is split so (the sales module's rules). */
  split?: unknown[];
}

/** An open amount's range when the merchant gives none: R$ 1,00 up to the most one charge may be. */
export const OPEN_AMOUNT_DEFAULTS = { minCents: 100, maxCents: MAX_CHARGE_CENTS };

/** The merchant's view of a link (API and panel). */
export interface LinkView {
  id: string;
  url: string;
  slug: string;
  active: boolean;
  uses: number;
  usesInProgress: number;
  title: string;
  description: string | null;
  amountCents: number | null;
  minCents: number | null;
  maxCents: number | null;
  methods: CheckoutMethod[];
  maxInstallments: number | null;
  expiresAt: string | null;
  maxUses: number | null;
  successUrl: string | null;
  metadata: Record<string, string>;
  split?: unknown[];
  createdAt: string;
}

/** The merchant's payment links: create, list, read, turn on and off. */
export class PaymentLinks {
  constructor(
    private readonly db: Queryable,
    private readonly publicUrl: string,
    /** What the gateway can take: a link offering anything else is refused. */
    private readonly taken: TakenMethods,
  ) {}

  async create(accountId: number, input: LinkInput): Promise<LinkView> {
    refuseUntaken(input.methods, this.taken);
    const amounts = amountsOf(input);
    const methods = methodsOf(input.methods);
    if (amounts.amount_cents !== null) refuseBeyondMethods(amounts.amount_cents, methods);
    const maxInstallments = installmentsOf(input);
    await checkChargesOf(
      this.db,
      accountId,
      input.split,
      chargesOf(
        amounts.amount_cents !== null ? [amounts.amount_cents] : [amounts.min_cents!, amounts.max_cents!],
        methods,
        maxInstallments,
      ),
    ).catch((err: unknown) => {
      // an open amount's least is what the fee check met: say so in the link's own terms, not an amount unsent
      const least = amounts.min_cents;
      const lacks =
        err instanceof Error &&
        least !== null &&
        new RegExp(`^amount ${least} does not cover`).test(err.message);
      if (!lacks) throw err;
      refuse(
        `minCents ${least}${input.minCents === undefined ? ' (the default)' : ''} ${(err as Error).message.replace(/^amount \d+ /, '')}: a payer could pay less than the fee; give minCents above it`,
      );
    });
    const row = await insertLink(this.db, {
      id: randomUUID(),
      account_id: accountId,
      slug: newSlug(),
      title: titleOf(input.title),
      description: input.description?.trim() || null,
      ...amountsOf(input),
      methods: methodsOf(input.methods),
      max_installments: installmentsOf(input),
      expires_at: expiryOf(input.expiresAt),
      max_uses: input.maxUses ?? null,
      success_url: returnUrl(input.successUrl, 'successUrl'),
      metadata: input.metadata ?? {},
      split: input.split ?? null,
    });
    return this.view(row, undefined);
  }

  /** Newest first; `beforeSeq` continues after the previous page. */
  async list(
    accountId: number,
    limit: number,
    beforeSeq: number | null,
  ): Promise<{ links: LinkView[]; lastSeq: number | null; more: boolean }> {
    const rows = await listLinks(this.db, accountId, limit + 1, beforeSeq);
    const page = rows.slice(0, limit);
    const uses = await linkUses(
      this.db,
      page.map((r) => r.id),
    );
    return {
      links: page.map((r) => this.view(r, uses.get(r.id))),
      lastSeq: page.at(-1)?.seq ?? null,
      more: rows.length > limit,
    };
  }

  async get(accountId: number, id: string): Promise<LinkView> {
    const row = await findLink(this.db, accountId, id);
    if (!row) throw new CheckoutNotFound('Payment link not found');
    return this.view(row, (await linkUses(this.db, [row.id])).get(row.id));
  }

  async setActive(accountId: number, id: string, active: boolean): Promise<LinkView> {
    const row = await setLinkActive(this.db, accountId, id, active);
    if (!row) throw new CheckoutNotFound('Payment link not found');
    return this.view(row, (await linkUses(this.db, [row.id])).get(row.id));
  }

  private view(r: LinkRow, uses: { paid: number; waiting: number } | undefined): LinkView {
    return {
      id: r.id,
      url: `${this.publicUrl}/pay/${r.slug}`,
      slug: r.slug,
      active: r.active,
      uses: uses?.paid ?? 0,
      usesInProgress: uses?.waiting ?? 0,
      title: r.title,
      description: r.description,
      amountCents: r.amount_cents,
      minCents: r.min_cents,
      maxCents: r.max_cents,
      methods: r.methods,
      maxInstallments: r.max_installments,
      expiresAt: r.expires_at?.toISOString() ?? null,
      maxUses: r.max_uses,
      successUrl: r.success_url,
      metadata: r.metadata,
      ...(r.split ? { split: r.split } : {}),
      createdAt: r.created_at.toISOString(),
    };
  }
}

/** A link's uses: its sales that were paid. */
export async function usesOf(q: Queryable, linkId: string): Promise<number> {
  return (await linkUses(q, [linkId])).get(linkId)?.paid ?? 0;
}

/** A link's title is shown to payers and printed in their e-mails: plain text, never a link. */
function titleOf(title: string): string {
  const problem = nameProblem(title.trim());
  return problem ? refuse(`title ${problem}`) : title.trim();
}

const refuse = (message: string): never => {
  throw new CheckoutInputError(message);
};

/** A fixed amount, or an open one's range (defaults filled in); never both. */
function amountsOf(input: LinkInput): Pick<LinkRow, 'amount_cents' | 'min_cents' | 'max_cents'> {
  if (input.amountCents !== undefined) {
    if (input.minCents !== undefined || input.maxCents !== undefined) {
      refuse('minCents and maxCents are for open amounts: leave them out when amountCents is given');
    }
    return { amount_cents: input.amountCents, min_cents: null, max_cents: null };
  }
  const min = input.minCents ?? OPEN_AMOUNT_DEFAULTS.minCents;
  const max = input.maxCents ?? OPEN_AMOUNT_DEFAULTS.maxCents;
  if (min > max) refuse(`minCents (${min}) must not be more than maxCents (${max})`);
  return { amount_cents: null, min_cents: min, max_cents: max };
}

export function methodsOf(methods: CheckoutMethod[]): CheckoutMethod[] {
  if (new Set(methods).size !== methods.length) refuse('methods must not repeat a method');
  return methods;
}

function installmentsOf(input: LinkInput): number | null {
  if (input.maxInstallments === undefined) return null;
  if (!input.methods.includes('CREDIT_CARD')) {
    refuse('maxInstallments needs CREDIT_CARD among the methods');
  }
  return input.maxInstallments;
}

function expiryOf(raw: string | undefined): Date | null {
  if (raw === undefined) return null;
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)
    ? new Date(raw)
    : null;
  if (!at || Number.isNaN(at.getTime())) {
    refuse('expiresAt must be an ISO 8601 date-time with its offset (e.g. 2026-12-31T23:59:59-03:00)');
  }
  if (at!.getTime() <= Date.now()) refuse('expiresAt must be in the future');
  return at;
}

/**
 * Every charge a link or session may make, as its split is checked (checkChargesOf): each amount bound with each
 * method; a card with one installment and with the most it allows (its fee grows with them).
 */
export function chargesOf(
  amounts: number[],
  methods: readonly CheckoutMethod[],
  maxInstallments: number | null,
): { amount: number; method: { paymentMethod: CheckoutMethod; installments?: number } }[] {
  type Charge = { amount: number; method: { paymentMethod: CheckoutMethod; installments?: number } };
  return amounts.flatMap((amount) =>
    methods.flatMap((paymentMethod): Charge[] =>
      paymentMethod === 'CREDIT_CARD'
        ? [1, maxInstallments ?? 12].map((installments) => ({
            amount,
            method: { paymentMethod, installments },
          }))
        : [{ amount, method: { paymentMethod } }],
    ),
  );
}

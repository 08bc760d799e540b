import { type AccountStatus, accountProfile, createAccount } from '../accounts/index.js';
import type { Db } from '../platform/db/db.js';
import { AppError, validation } from '../platform/errors/app-error.js';
import { sniffType } from '../platform/files/sniff.js';
import { isUf } from '../platform/text/address.js';
import { isCnpj, isCpf } from '../platform/text/documents.js';
import { openReview } from '../reviews/index.js';
import {
  currentDocuments,
  type DocumentKind,
  type DocumentMeta,
  documentUsage,
  lockDocuments,
  replaceDocument,
} from './documents.data.js';

const MB = 1024 * 1024;
/** One document, at most. */
export const MAX_DOCUMENT_BYTES = 10 * MB;
/** The account's current documents (one per kind), together at most. */
export const MAX_ACCOUNT_DOCUMENTS_BYTES = 40 * MB;
/** Documents an account may send in a day (each replaces the previous one of its kind). */
export const DOCUMENT_UPLOADS_PER_DAY = 10;
const DAY_HOURS = 24;

export interface SignupInput {
  name: string;
  legalName: string;
  document: string;
  email: string;
  password: string;
  phone: string;
  address: Record<string, string>;
}

/** What a person's account needs; a company's also its contract (contrato social). */
const PERSON_KINDS: DocumentKind[] = ['id_front', 'id_back', 'selfie', 'proof_of_address'];
const COMPANY_KINDS: DocumentKind[] = [...PERSON_KINDS, 'company_contract'];

export interface OnboardingState {
  status: AccountStatus;
  /** The operator's reason for the status (a suspension's), told to the account. */
  statusReason: string | null;
  payoutHold: boolean;
  payoutHoldReason: string | null;
  documents: DocumentMeta[];
  /** The kinds still to send (the newest of each kind counts). */
  missing: DocumentKind[];
}

const PHONE = /^\+?[0-9 ()-]{10,20}$/;

/**
 * Self sign-up (SIGNUP=on) and the documents an operator checks before approving (decisions.md, "The operators'
 * console"). A signed-up account starts `pending_review`, with an onboarding review open in the console's queue.
 */
export class Onboarding {
  constructor(private readonly db: Db) {}

  async signUp(input: SignupInput): Promise<{ id: number; email: string }> {
    const document = input.document.replace(/\D/g, '');
    if (!isCpf(document) && !isCnpj(document)) throw validation('document must be a valid CPF or CNPJ');
    if (!PHONE.test(input.phone.trim()))
      throw validation('phone must be a phone number, like +55 11 98765-4321');
    const legalName = input.legalName.trim();
    if (legalName === '') throw validation('legalName is required');
    if (!isUf(String(input.address.state ?? ''))) throw validation('address.state must be a UF (SP, RJ, …)');
    return createAccount(
      this.db,
      {
        name: input.name,
        email: input.email,
        password: input.password,
        status: 'pending_review',
        profile: { legalName, document, phone: input.phone.trim(), address: input.address },
      },
      (tx, accountId) =>
        openReview(tx, {
          kind: 'onboarding',
          accountId,
          reason: 'Novo cadastro: documentos e dados para análise',
        }),
    );
  }

  /**
   * Whether the account may send a document of `kind` of about `declaredBytes` (the request's declared length,
   * or null), checked before its file is read: the day's uploads, and room under the account's total.
   */
  async admit(accountId: number, kind: DocumentKind, declaredBytes: number | null): Promise<void> {
    const usage = await documentUsage(this.db, accountId, DAY_HOURS, kind);
    this.checkUsage(usage, declaredBytes === null ? 1 : Math.max(1, declaredBytes - 64 * 1024));
  }

  /**
   * Stores a document as the account's current one of its kind (the previous one kept only as its SHA-256
   * and metadata), under the account's bounds, checked again under its lock.
   */
  async upload(accountId: number, kind: DocumentKind, content: Buffer): Promise<DocumentMeta> {
    if (content.length === 0) throw validation('the file is empty');
    if (content.length > MAX_DOCUMENT_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', 'a document is at most 10 MB');
    const contentType = sniffType(content);
    if (!contentType)
      throw new AppError('UNSUPPORTED_FILE_TYPE', 'the document is not a PDF, PNG or JPEG file');
    return this.db.tx(async (tx) => {
      await lockDocuments(tx, accountId);
      this.checkUsage(await documentUsage(tx, accountId, DAY_HOURS, kind), content.length);
      return replaceDocument(tx, accountId, kind, contentType, content);
    });
  }

  private checkUsage(
    usage: { recentUploads: number; windowFreesInSeconds: number; otherKindsBytes: number },
    bytes: number,
  ): void {
    if (usage.recentUploads >= DOCUMENT_UPLOADS_PER_DAY) {
      throw new AppError(
        'RATE_LIMITED',
        `An account sends at most ${DOCUMENT_UPLOADS_PER_DAY} documents in 24 hours (each replaces the previous one of its kind): retry once the oldest of them is 24 hours old`,
        { limit: { max: DOCUMENT_UPLOADS_PER_DAY, retryAfterSeconds: usage.windowFreesInSeconds } },
      );
    }
    if (usage.otherKindsBytes + bytes > MAX_ACCOUNT_DOCUMENTS_BYTES) {
      const room = Math.max(0, MAX_ACCOUNT_DOCUMENTS_BYTES - usage.otherKindsBytes);
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `An account's documents are at most ${MAX_ACCOUNT_DOCUMENTS_BYTES / MB} MB together: this kind has room for ${(room / MB).toFixed(1)} MB`,
      );
    }
  }

  async state(accountId: number): Promise<OnboardingState> {
    const [profile, documents] = await Promise.all([
      accountProfile(this.db, accountId),
      currentDocuments(this.db, accountId),
    ]);
    const needed = profile?.document && isCnpj(profile.document) ? COMPANY_KINDS : PERSON_KINDS;
    const sent = new Set(documents.map((d) => d.kind));
    return {
      status: profile?.status ?? 'closed',
      statusReason: profile?.statusReason ?? null,
      payoutHold: profile?.payoutHold ?? false,
      payoutHoldReason: profile?.payoutHold ? (profile.payoutHoldReason ?? null) : null,
      documents,
      missing: needed.filter((k) => !sent.has(k)),
    };
  }
}

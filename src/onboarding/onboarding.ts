import { type AccountStatus, accountProfile, createAccount } from '../accounts/index.js';
import type { Db } from '../platform/db/db.js';
import { AppError, validation } from '../platform/errors/app-error.js';
import { sniffType } from '../platform/files/sniff.js';
import { isCnpj, isCpf } from '../platform/text/documents.js';
import { openReview } from '../reviews/index.js';
import { currentDocuments, type DocumentKind, type DocumentMeta, insertDocument } from './documents.data.js';

export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

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

  async upload(accountId: number, kind: DocumentKind, content: Buffer): Promise<DocumentMeta> {
    if (content.length === 0) throw validation('the file is empty');
    if (content.length > MAX_DOCUMENT_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', 'a document is at most 10 MB');
    const contentType = sniffType(content);
    if (!contentType)
      throw new AppError('UNSUPPORTED_FILE_TYPE', 'the document is not a PDF, PNG or JPEG file');
    return insertDocument(this.db, accountId, kind, contentType, content);
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
      documents,
      missing: needed.filter((k) => !sent.has(k)),
    };
  }
}

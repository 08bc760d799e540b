import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requestOrigin } from '../audit/index.js';
import { accountOf, SessionResponse, type SessionService, signedIn } from '../auth/index.js';
import { AppError, notFound, validation } from '../platform/errors/app-error.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { UploadSlots } from '../platform/http/upload-slots.js';
import { type DocumentKind, isDocumentKind } from './documents.data.js';
import { MAX_DOCUMENT_BYTES, type Onboarding } from './onboarding.js';
import { DocumentMeta, OnboardingState, SignupBody } from './schemas.js';

export interface OnboardingRouteDeps {
  onboarding: Onboarding;
  sessions: SessionService;
  requireSession: AuthHook;
  secureCookies: boolean;
  /** SIGNUP=on: the sign-up route answers; off, it is not there (404). */
  signup: boolean;
  loginLimit: AuthHook | null;
}

const A = { errorShape: 'envelope' as const };

/** Documents a process reads at once (each holds up to 10 MB in memory), and one account's at once. */
const DOCUMENTS_AT_ONCE = 2;
const DOCUMENTS_PER_ACCOUNT = 1;
/** A request's declared length past a document at its limit and room for `kind` and the parts' headers. */
const MAX_REQUEST_BYTES = MAX_DOCUMENT_BYTES + 64 * 1024;

/** Self sign-up and the onboarding documents an account sends for review. */
export async function onboardingRoutes(app: Http, deps: OnboardingRouteDeps): Promise<void> {
  await app.register(multipart, {
    // one more byte than allowed, so that going past the limit is seen and refused as such
    limits: {
      files: 1,
      fileSize: MAX_DOCUMENT_BYTES + 1,
      fields: 2,
      fieldSize: 64,
      parts: 3,
      headerPairs: 20,
    },
    throwFileSizeLimit: false,
  });

  const slots = new UploadSlots(DOCUMENTS_AT_ONCE, DOCUMENTS_PER_ACCOUNT);

  // asked by the panel's login page to offer "Criar conta" or not: answered either way, so that a gateway
  // without sign-up leaves no 404 in every visitor's browser console
  app.get(
    '/api/signup',
    {
      config: { ...A, permission: 'public' },
      schema: {
        tags: ['panel'],
        summary:
          'Whether anyone may sign up here (SIGNUP=on); without it, POST /api/signup is not there (404)',
        response: { 200: Type.Object({ open: Type.Boolean() }) },
      },
    },
    async () => ({ open: deps.signup }),
  );

  // documented whether or not it is open: without SIGNUP=on it answers 404, as an unknown route would
  app.post(
    '/api/signup',
    {
      config: { ...A, permission: 'public', errors: ['CONFLICT', 'RATE_LIMITED', 'NOT_FOUND'] },
      ...(deps.loginLimit ? { onRequest: deps.loginLimit } : {}),
      schema: {
        tags: ['panel'],
        summary:
          'Sign up (SIGNUP=on; else 404): the account waits for review (pending_review); its owner is logged in. Shares the sign-in limit per address (RATE_LIMIT_LOGIN_PER_IP)',
        body: SignupBody,
        response: {
          201: SessionResponse,
          ...errorAnswers(EnvelopeErrorBody, [400, 404, 409, 429]),
        },
      },
    },
    async (request, reply) => {
      if (!deps.signup) throw notFound('Sign-up is not open on this gateway');
      const body = request.body;
      await deps.onboarding.signUp(body);
      const session = await deps.sessions.login(body.email, body.password, undefined, requestOrigin(request));
      return reply.code(201).send(signedIn(reply, session, deps.secureCookies));
    },
  );

  app.get(
    '/api/onboarding',
    {
      config: { ...A, permission: 'self' },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: "The account's status, the documents it sent and those still missing",
        response: { 200: OnboardingState, 401: EnvelopeErrorBody },
      },
    },
    async (request) => deps.onboarding.state(accountOf(request)),
  );

  app.post(
    '/api/onboarding/documents',
    {
      config: {
        ...A,
        permission: 'team',
        errors: ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_FILE_TYPE', 'RATE_LIMITED'],
      },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary:
          'Send an onboarding document: multipart with `kind` (id_front, id_back, selfie, company_contract, proof_of_address) then one file (PDF, PNG or JPEG by its content, up to 10 MB); it replaces the previous document of its kind. An account sends one at a time, at most 10 a day, its current documents at most 40 MB together',
        consumes: ['multipart/form-data'],
        response: {
          201: DocumentMeta,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 413, 415, 429, 503]),
        },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const document = await receive(
        request,
        reply,
        slots,
        async (kind, content) => deps.onboarding.upload(accountId, kind, content),
        (kind, declared) => deps.onboarding.admit(accountId, kind, declared),
        accountId,
      );
      return reply.code(201).send(document);
    },
  );
}

/**
 * Checks a document's request before reading its file: multipart, a declared length within bounds, room to
 * read it (UploadSlots: one of the account's at a time, a few per process), a valid `kind` sent before the
 * file, and the account's bounds for it (`admit`); then reads the file and stores it. A refusal that leaves
 * the body unread closes the connection, so the rest is not read either.
 */
async function receive<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  slots: UploadSlots,
  store: (kind: DocumentKind, content: Buffer) => Promise<T>,
  admit: (kind: DocumentKind, declaredBytes: number | null) => Promise<void>,
  accountId: number,
): Promise<T> {
  try {
    if (!request.isMultipart()) throw validation('send the document as multipart/form-data: kind and file');
    const raw = request.headers['content-length'];
    const declared = raw === undefined ? null : Number(raw);
    if (declared !== null && declared > MAX_REQUEST_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', 'a document is at most 10 MB');
    }
    const release = slots.takeOrRefuse(accountId, {
      account: 'Another document of this account is being sent: retry once it ends',
      process: 'Too many documents are being sent: retry shortly',
    });
    try {
      const { kind, content } = await readDocument(request, declared, admit);
      return await store(kind, content);
    } finally {
      release();
    }
  } catch (err) {
    if (!request.raw.complete) reply.header('connection', 'close');
    throw err;
  }
}

/**
 * The `kind` field, then the one file, read whole (at most one byte past the limit, so that more is seen);
 * `admit` decides on the kind and the declared length before the file is read.
 */
async function readDocument(
  request: FastifyRequest,
  declared: number | null,
  admit: (kind: DocumentKind, declaredBytes: number | null) => Promise<void>,
): Promise<{ kind: DocumentKind; content: Buffer }> {
  let kind: DocumentKind | null = null;
  let content: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (content) throw validation('send one file per request');
        if (!kind) throw validation('send the kind field before the file');
        await admit(kind, declared);
        const buffer = Buffer.allocUnsafe(
          Math.min(MAX_DOCUMENT_BYTES + 1, declared ?? MAX_DOCUMENT_BYTES + 1),
        );
        let size = 0;
        // the parser ends a file at MAX_DOCUMENT_BYTES + 1 bytes (the plugin's limit) and marks it truncated
        for await (const chunk of part.file as AsyncIterable<Buffer>) {
          if (size + chunk.length > buffer.length)
            throw new AppError('PAYLOAD_TOO_LARGE', 'a document is at most 10 MB');
          size += chunk.copy(buffer, size);
        }
        if (size > MAX_DOCUMENT_BYTES || part.file.truncated) {
          throw new AppError('PAYLOAD_TOO_LARGE', 'a document is at most 10 MB');
        }
        content = buffer.subarray(0, size);
      } else if (part.fieldname === 'kind') {
        if (kind) throw validation('send one kind field');
        const value = String(part.value);
        if (!isDocumentKind(value)) {
          throw validation(
            'kind must be one of id_front, id_back, selfie, company_contract, proof_of_address',
          );
        }
        kind = value;
      } else {
        throw validation(`unknown field ${JSON.stringify(part.fieldname)}: send kind and file`);
      }
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_FILES_LIMIT') throw validation('send one file per request');
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
      throw validation('send kind and file only');
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') throw validation('the body is not valid multipart');
    throw err;
  }
  if (!kind) {
    throw validation('kind must be one of id_front, id_back, selfie, company_contract, proof_of_address');
  }
  if (!content) throw validation('send the document as a file part');
  return { kind, content };
}

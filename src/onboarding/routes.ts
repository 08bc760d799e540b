import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requestOrigin } from '../audit/index.js';
import { accountOf, SessionResponse, type SessionService, signedIn } from '../auth/index.js';
import { AppError, validation } from '../platform/errors/app-error.js';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
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

  if (deps.signup) {
    app.get(
      '/api/signup',
      {
        config: { ...A, permission: 'public' },
        schema: {
          tags: ['panel'],
          summary: 'Whether anyone may sign up here (SIGNUP=on); without it this route is not there (404)',
          response: { 200: Type.Object({ open: Type.Literal(true) }) },
        },
      },
      async () => ({ open: true as const }),
    );

    app.post(
      '/api/signup',
      {
        config: { ...A, permission: 'public', errors: ['CONFLICT', 'RATE_LIMITED'] },
        ...(deps.loginLimit ? { onRequest: deps.loginLimit } : {}),
        schema: {
          tags: ['panel'],
          summary:
            'Sign up (SIGNUP=on): the account waits for review (pending_review); its owner is logged in',
          body: SignupBody,
          response: {
            201: SessionResponse,
            400: EnvelopeErrorBody,
            409: EnvelopeErrorBody,
            429: EnvelopeErrorBody,
          },
        },
      },
      async (request, reply) => {
        const body = request.body;
        await deps.onboarding.signUp(body);
        const session = await deps.sessions.login(
          body.email,
          body.password,
          undefined,
          requestOrigin(request),
        );
        return reply.code(201).send(signedIn(reply, session, deps.secureCookies));
      },
    );
  }

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
      config: { ...A, permission: 'team', errors: ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_FILE_TYPE'] },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary:
          'Send an onboarding document: multipart with `kind` (id_front, id_back, selfie, company_contract, proof_of_address) and one file (PDF, PNG or JPEG by its content, up to 10 MB)',
        consumes: ['multipart/form-data'],
        response: {
          201: DocumentMeta,
          400: EnvelopeErrorBody,
          401: EnvelopeErrorBody,
          403: EnvelopeErrorBody,
          413: EnvelopeErrorBody,
          415: EnvelopeErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { kind, content } = await readDocument(request);
      return reply.code(201).send(await deps.onboarding.upload(accountOf(request), kind, content));
    },
  );
}

/** The `kind` field and the one file, read whole (at most one byte past the limit, so that more is seen). */
async function readDocument(request: FastifyRequest): Promise<{ kind: DocumentKind; content: Buffer }> {
  if (!request.isMultipart()) throw validation('send the document as multipart/form-data: kind and file');
  if (Number(request.headers['content-length'] ?? 0) > MAX_DOCUMENT_BYTES + 64 * 1024) {
    throw new AppError('PAYLOAD_TOO_LARGE', 'a document is at most 10 MB');
  }
  let kind: string | null = null;
  let content: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const chunks: Buffer[] = [];
        for await (const chunk of part.file as AsyncIterable<Buffer>) chunks.push(chunk);
        if (part.file.truncated) throw new AppError('PAYLOAD_TOO_LARGE', 'a document is at most 10 MB');
        content = Buffer.concat(chunks);
      } else if (part.fieldname === 'kind') {
        kind = String(part.value);
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
  if (!isDocumentKind(kind)) {
    throw validation('kind must be one of id_front, id_back, selfie, company_contract, proof_of_address');
  }
  if (!content) throw validation('send the document as a file part');
  return { kind, content };
}

import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type Actor, apiKeyActor, userActor } from '../audit/index.js';
import { accountOf, merchantOf, sessionOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { AppError, type ErrorCode, notFound, validation } from '../platform/errors/app-error.js';
import { doorDeclaration, EnvelopeErrorBody, IpAccessErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { UploadSlots } from '../platform/http/upload-slots.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { encodeCursor, parsePage } from '../platform/paging/pagination.js';
import type { DisputeRow } from './data.js';
import type { Disputes } from './disputes.js';
import { type EvidencePart, MAX_FILE_BYTES, MAX_FILES, MAX_TEXT_CHARS } from './evidence.js';
import { Dispute, DisputeListQuery, DisputePage } from './schemas.js';

export interface DisputeRouteDeps {
  db: Db;
  disputes: Disputes;
  apiKey: AuthHook;
  requireSession: AuthHook;
}

const IdPath = Type.Object({ id: Type.String({ examples: ['5f0c2b8e-7d14-4f3a-9b6e-1c2d3e4f5a6b'] }) });

/** The dispute routes for the API (`/api/disputes`, keys, error shape D) and the panel (`/api/panel/disputes`, shape A). */
export async function disputeRoutes(app: Http, deps: DisputeRouteDeps): Promise<void> {
  await app.register(multipart, {
    // one more file and one more byte than allowed, so that going past a limit is seen and refused as such
    limits: {
      files: MAX_FILES + 1,
      fileSize: MAX_FILE_BYTES + 1,
      fields: 4,
      fieldSize: MAX_TEXT_CHARS * 4 + 1,
      parts: MAX_FILES + 5,
      headerPairs: 20,
    },
    throwFileSizeLimit: false,
  });
  const slots = new UploadSlots(); // one room for both doors
  register(app, deps, slots, { kind: 'api', path: '/api/disputes', auth: deps.apiKey });
  register(app, deps, slots, { kind: 'panel', path: '/api/panel/disputes', auth: deps.requireSession });
}

function disputeId(raw: string): string {
  if (!isUuid(raw)) throw notFound('Dispute not found');
  return raw.toLowerCase();
}

/**
 * An answer's body bounds: besides its parts' own limits (files, bytes per file, fields), a declared length
 * past every file at its limit and room for the text and the parts' headers is refused before it is read.
 */
const MAX_ANSWER_BYTES = MAX_FILES * MAX_FILE_BYTES + 1024 * 1024;

/**
 * The answer's parts as they arrive: each file read whole (at most one byte past its limit, so that more is
 * seen and refused at once) and handed on before the next is read; the `text` field.
 */
async function* evidenceParts(request: FastifyRequest): AsyncGenerator<EvidencePart> {
  // one buffer for every file of the answer, each handed on (and stored) before the next is read into it
  let buffer: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        buffer ??= Buffer.allocUnsafe(MAX_FILE_BYTES + 1);
        let size = 0;
        // the parser ends a file at MAX_FILE_BYTES + 1 bytes (the plugin's limit below) and marks it truncated
        for await (const chunk of part.file as AsyncIterable<Buffer>) {
          size += chunk.copy(buffer, size);
        }
        if (size > MAX_FILE_BYTES || part.file.truncated) {
          throw new AppError('PAYLOAD_TOO_LARGE', `${part.filename || 'a file'} is larger than 5 MB`);
        }
        yield { kind: 'file', name: part.filename, content: buffer.subarray(0, size) };
      } else if (part.fieldname === 'text') {
        if (part.valueTruncated) throw validation(`text must be at most ${MAX_TEXT_CHARS} characters`);
        yield { kind: 'text', text: String(part.value) };
      } else {
        throw validation(`unknown field ${JSON.stringify(part.fieldname)}: send files and text only`);
      }
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_FILES_LIMIT') throw validation(`at most ${MAX_FILES} files per answer`);
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
      throw validation('too many fields: send files and text only');
    }
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') throw validation('the body is not valid multipart');
    throw err;
  }
}

/**
 * Checks an answer's request before reading its body: multipart, a declared length within bounds, the dispute
 * open for an answer, room to read it (UploadSlots); then streams it into the dispute. A refusal that leaves
 * the body unread closes the connection, so the rest is not read either.
 */
async function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: DisputeRouteDeps,
  slots: UploadSlots,
  accountId: number,
  id: string,
  actor: Actor,
): Promise<DisputeRow> {
  try {
    if (!request.isMultipart()) {
      throw validation('send the evidence as multipart/form-data: files, and an optional text field');
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > MAX_ANSWER_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', `an answer is at most ${MAX_FILES} files of 5 MB and a text`);
    }
    await deps.disputes.answerable(accountId, id);
    const slot = slots.takeOrRefuse(accountId, {
      account: 'Another answer of this account is being sent: retry once it ends',
      process: 'Too many answers are being sent: retry shortly',
    });
    try {
      return await deps.disputes.respond(accountId, id, evidenceParts(request), actor);
    } finally {
      slot();
    }
  } catch (err) {
    if (!request.raw.complete) reply.header('connection', 'close');
    throw err;
  }
}

function register(
  app: Http,
  deps: DisputeRouteDeps,
  slots: UploadSlots,
  side: { kind: 'api' | 'panel'; path: string; auth: AuthHook },
): void {
  const api = side.kind === 'api';
  const { errorShape, body, errors, common } = doorDeclaration(
    side.kind,
    Type.Union([IpAccessErrorBody, EnvelopeErrorBody]),
  );
  const accountIdOf = (request: FastifyRequest) => (api ? merchantOf(request).accountId : accountOf(request));
  // who answered or accepted, for the audit log: the API key, or the panel's user
  const actorOf = (request: FastifyRequest) =>
    api ? apiKeyActor(request, merchantOf(request)) : userActor(request, sessionOf(request).user);
  const config = (permission: 'money.view' | 'disputes.respond', codes: ErrorCode[] = []) => ({
    errorShape,
    errors: codes,
    ...(api ? {} : { permission }),
  });

  app.get(
    side.path,
    {
      config: config('money.view'),
      onRequest: side.auth,
      schema: {
        ...common,
        summary: 'The disputes (chargebacks and MEDs) of the account, newest first',
        querystring: DisputeListQuery,
        response: { 200: DisputePage, ...errors },
      },
    },
    async (request) => {
      const page = parsePage({
        ...(request.query.limit === undefined ? {} : { limit: request.query.limit }),
        ...(request.query.cursor === undefined ? {} : { cursor: request.query.cursor }),
      });
      const { data, lastId, more } = await deps.disputes.list(accountIdOf(request), {
        status: request.query.status,
        saleId: request.query.saleId,
        limit: page.limit,
        before: page.before,
      });
      return { data, nextCursor: more && lastId !== null ? encodeCursor(lastId) : null };
    },
  );

  app.get(
    `${side.path}/:id`,
    {
      config: config('money.view', ['NOT_FOUND']),
      onRequest: side.auth,
      schema: {
        ...common,
        summary: 'One dispute, with the evidence sent',
        params: IdPath,
        response: { 200: Dispute, ...errors },
      },
    },
    async (request) => deps.disputes.get(accountIdOf(request), disputeId(request.params.id)),
  );

  app.post(
    `${side.path}/:id/evidence`,
    {
      config: config('disputes.respond', [
        'NOT_FOUND',
        'DISPUTE_CLOSED',
        'UNSUPPORTED_FILE_TYPE',
        'RATE_LIMITED',
      ]),
      onRequest: side.auth,
      schema: {
        ...common,
        summary:
          'Answer a dispute before respondBy: multipart/form-data with up to 10 files (PDF, PNG or JPEG by content, 5 MB each) and a text of up to 5,000 characters; the dispute goes under_review',
        consumes: ['multipart/form-data'],
        params: IdPath,
        response: { 200: Dispute, ...errors, 409: body, 413: body, 415: body, 429: body, 503: body },
      },
    },
    async (request, reply) => {
      const id = disputeId(request.params.id);
      const dispute = await answer(request, reply, deps, slots, accountIdOf(request), id, actorOf(request));
      return deps.disputes.viewOf(deps.db, dispute);
    },
  );

  app.post(
    `${side.path}/:id/accept`,
    {
      config: config('disputes.respond', ['NOT_FOUND', 'DISPUTE_CLOSED', 'CONFLICT']),
      onRequest: side.auth,
      schema: {
        ...common,
        summary: 'Accept a dispute: give up its amount (the dispute is lost, as accepted)',
        params: IdPath,
        response: { 200: Dispute, ...errors, 409: body },
      },
    },
    async (request) => {
      const dispute = await deps.disputes.accept(
        accountIdOf(request),
        disputeId(request.params.id),
        actorOf(request),
      );
      return deps.disputes.viewOf(deps.db, dispute);
    },
  );
}

// the plugins' additions to Fastify's types (request.cookies, a schema's description), wherever a route is compiled
import type {} from '@fastify/cookie';
import type {} from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ErrorCode } from '../errors/app-error.js';
import type { ErrorShape } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error body family of this route. IP-access and business-rule codes keep their own. */
    errorShape?: ErrorShape;
    /**
     * The error codes this route answers beyond those every route of its kind does (error-catalogue.ts): its
     * catalogue in /openapi.json and docs/errors.md. Answering a code not listed is logged as a fault.
     */
    errors?: readonly ErrorCode[];
    /**
     * What an API key's scope must cover to open this route (auth/key-scopes.ts); absent: `read` for GET, `full`
     * otherwise. A key refused by its scope gets 403 FORBIDDEN in the transaction body, or the business-rule body
     * where `keyScopeRefusal` says so (the cashout).
     */
    keyScope?: 'read' | 'charges' | 'full';
    keyScopeRefusal?: 'business-rule';
    /**
     * This route opens a charge, a cashout or an anticipation, or tokenizes a card for a charge: refused (403
     * ACCOUNT_NOT_ACTIVE / ACCOUNT_SUSPENDED) unless the account is active, in the route's body family (the
     * business-rule one where `keyScopeRefusal` says so); a `sandbox-charge` is refused to a suspended account
     * alone. Only `charge` routes are shed under load.
     */
    moves?: 'charge' | 'cashout' | 'card-token' | 'sandbox-charge' | 'anticipation';
  }
  interface FastifyRequest {
    /**
     * This request's error family, where a route opened by two doors (an API key, a panel session) answers
     * each in its own: set by the route's door hook; unset, the route's `errorShape`.
     */
    errorShape?: ErrorShape;
  }
  interface FastifyInstance {
    /** Compiles now every route schema still waiting for its first request (http/lazy-schemas.ts). */
    compileSchemas(): void;
    /** Every route registered, as registered (the OpenAPI and body-hardening tests walk it). */
    routeList: { method: string; url: string; errorShape: ErrorShape }[];
    /**
     * What the domains add to the OpenAPI document: named schemas (components.schemas; a route's inline schema
     * equal to one becomes a $ref to it) and the top-level `webhooks` section. Filled before the first request.
     */
    openapiExtras: {
      schemas: Record<string, object>;
      webhooks: Record<string, object>;
      /** Extension fields (`x-…`) of single operations, by `METHOD /fastify/:url`. */
      operations: Record<string, Record<`x-${string}`, unknown>>;
    };
  }
}

export type Http = FastifyInstance<
  import('node:http').Server,
  import('node:http').IncomingMessage,
  import('node:http').ServerResponse,
  Logger,
  TypeBoxTypeProvider
>;

/**
 * Counts one card tokenization against the card-testing limits (its source address, its card) before the card
 * reaches the acquirer; past one it throws RATE_LIMITED. Built by app.ts from the limits and the cards module's
 * fingerprint, so that the number is never handed to the limits themselves.
 */
export type CardAttemptCheck = (
  request: FastifyRequest,
  reply: FastifyReply,
  cardNumber: string,
) => Promise<void>;

/** An onRequest hook that authenticates (API key or panel session) or throws an AppError. */
export type AuthHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

import { type TSchema, Type } from 'typebox';
import type { ErrorShape } from './errors.js';

/**
 * Response schemas of the five error body families of the API contract, for route declarations and the OpenAPI
 * document. The bodies themselves are built by renderError in errors.ts.
 */
export const EnvelopeErrorBody = Type.Object(
  { success: Type.Literal(false), error: Type.Object({ code: Type.String(), message: Type.String() }) },
  { description: 'Error shape A' },
);
export const IpAccessErrorBody = Type.Object(
  { message: Type.String(), code: Type.String() },
  { description: 'Error shape B' },
);
export const BusinessRuleErrorBody = Type.Object(
  { message: Type.String(), errorType: Type.String() },
  { description: 'Error shape C' },
);
export const TransactionErrorBody = Type.Object(
  { message: Type.String(), error: Type.String() },
  { description: 'Error shape D' },
);
export const BalanceErrorBody = Type.Object(
  { error: Type.String(), message: Type.String() },
  { description: 'Error shape E' },
);

/** An API-key route's 403 in shape D: the key's scope refused (shape D), or its address not allowed (shape B). */
export const KeyForbiddenBody = Type.Union([TransactionErrorBody, IpAccessErrorBody]);

/** What every API-key resource route in shape D may answer besides its own codes. */
export const KEY_ROUTE_ERRORS = {
  400: TransactionErrorBody,
  401: TransactionErrorBody,
  403: KeyForbiddenBody,
  404: TransactionErrorBody,
};

/** A route with two doors answers either door's body: the API key's (shape D) or the panel session's (shape A). */
export const EitherDoorErrorBody = Type.Union([TransactionErrorBody, EnvelopeErrorBody]);

/** A 403 of a route with a key door: the key's scope (shape D), its address (shape B) or the session's (shape A). */
export const AnyDoorForbiddenBody = Type.Union([TransactionErrorBody, IpAccessErrorBody, EnvelopeErrorBody]);

/** The 403 of an API route the panel opens too: the key's scope (D), the session's (A) or the key's address (B). */
export const EitherDoorForbiddenBody = Type.Union([
  TransactionErrorBody,
  EnvelopeErrorBody,
  IpAccessErrorBody,
]);

/** An API route the panel opens too: either door's body for each status listed, and either door's 403. */
export function eitherDoorErrors(statuses: readonly number[]): Record<number, TSchema> {
  return { ...errorAnswers(EitherDoorErrorBody, statuses), 403: EitherDoorForbiddenBody };
}

/** What every API route the panel opens too may answer besides its own codes (a 403 in shape B as well). */
export const EITHER_DOOR_ERRORS = eitherDoorErrors([400, 401, 404]);

/** The tags and security of an API route the panel opens too: a key pair, or the panel session. */
export const EITHER_DOOR_ROUTE: { tags: string[]; security: Record<string, string[]>[] } = {
  tags: ['public'],
  security: [{ publicKey: [], privateKey: [] }, { session: [] }],
};

/** The body schema of each family a route can declare. */
export const ERROR_BODY_OF_SHAPE: Record<ErrorShape, typeof EnvelopeErrorBody | typeof TransactionErrorBody> =
  {
    envelope: EnvelopeErrorBody,
    transaction: TransactionErrorBody,
    balance: BalanceErrorBody,
  };

/** One error body for each status listed, spread into a route's response schema: `{ 400: body, 409: body, … }`. */
export function errorAnswers<T extends TSchema>(body: T, statuses: readonly number[]): Record<number, T> {
  return Object.fromEntries(statuses.map((status) => [status, body]));
}

/** The tags and security of an API-key route (a key pair). */
export const KEY_ROUTE: { tags: string[]; security: Record<string, string[]>[] } = {
  tags: ['public'],
  security: [{ publicKey: [], privateKey: [] }],
};

/**
 * What a route registered once for each door says of its door: under the API key, errors in shape D (`body`; the 403
 * as `keyForbidden`) and the key's tags and security; under the panel session, errors in shape A and the panel's tag.
 */
export function doorDeclaration(kind: 'api' | 'panel', keyForbidden: TSchema) {
  return kind === 'api'
    ? {
        errorShape: 'transaction' as const,
        body: TransactionErrorBody,
        errors: { ...errorAnswers(TransactionErrorBody, [400, 401, 404]), 403: keyForbidden },
        common: KEY_ROUTE,
      }
    : {
        errorShape: 'envelope' as const,
        body: EnvelopeErrorBody,
        errors: errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
        common: { tags: ['panel'] },
      };
}

/** The route config of a route answering errors in shape D. */
export const SHAPE_D = { errorShape: 'transaction' as const };

/** A route with a key door's errors: 400 and 401 and `statuses` in shape D, and the 403 of any door. */
export function keyDoorErrors(statuses: readonly number[]): Record<number, TSchema> {
  return { ...errorAnswers(TransactionErrorBody, [400, 401, ...statuses]), 403: AnyDoorForbiddenBody };
}

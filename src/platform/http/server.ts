import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyError, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { AppError } from '../errors/app-error.js';
import { accessLoggerOf } from '../observability/logger.js';
import { rateLimited } from '../observability/metrics.js';
import { ChargeShed } from './charge-shedding.js';
import { capConnectionsPerSource } from './connection-cap.js';
import { listsCode } from './error-catalogue.js';
import {
  declaresRuleInOwnFamily,
  HttpError,
  headersOf,
  isBusinessRuleCode,
  renderError,
  statusOf,
} from './errors.js';
import { clientErrorHandler, frameworkErrorHandler, RouteShapes } from './framework-errors.js';
import { installJsonParser } from './json-body.js';
import { keepDefaultHeaderHandling, lazySchemaCompilers } from './lazy-schemas.js';
import { installOpenApi } from './openapi.js';
import { installRequestLog, lazyChildLogger } from './request-log.js';
import { watchSilentConnections } from './silent-connections.js';
import type { Http } from './types.js';

/** A caller's X-Request-Id is echoed when it is 1–64 characters of this set; otherwise one is generated. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

const BODY_LIMIT = 1024 * 1024;

/** A failover's search probes every quarter second: a client told to come back in a second finds it done. */
const RETRY_AFTER_SECONDS = 1;

export async function createHttp(config: Config, log: Logger): Promise<Http> {
  const shapes = new RouteShapes();
  const schemas = lazySchemaCompilers();
  const app = Fastify({
    schemaController: schemas.schemaController,
    frameworkErrors: frameworkErrorHandler(shapes),
    clientErrorHandler: clientErrorHandler(shapes),
    loggerInstance: log,
    // one access line per request, written by installRequestLog; request.log is made only when used
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    return503OnClosing: true,
    // slow clients (docs/security.md): headers, then the whole request, each within a limit; idle keep-alive bounded
    // (the request's time given to Node's server too, which checks the headers' time against it when it is made:
    // without it, its default of 5 minutes refused a headers' time above that)
    http: {
      headersTimeout: config.httpHeadersTimeoutMs,
      requestTimeout: config.httpRequestTimeoutMs,
      connectionsCheckingInterval: 1000,
    },
    requestTimeout: config.httpRequestTimeoutMs,
    keepAliveTimeout: config.httpKeepAliveTimeoutMs,
    forceCloseConnections: 'idle',
    // Path ids of any length reach their route (and its documented 400) instead of the router's 414: the
    // limit is past Node's 16 KiB cap on the whole request head.
    routerOptions: { maxParamLength: 65536 },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as Http;

  keepDefaultHeaderHandling(app);
  app.decorate('compileSchemas', schemas.compileAll);
  app.decorate('openapiExtras', { schemas: {}, webhooks: {}, operations: {} });
  const routeList: Http['routeList'] = [];
  app.decorate('routeList', routeList);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      // HEAD answers as its GET; an OPTIONS route is a CORS preflight, not an operation of the API
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routeList.push({ method, url: route.url, errorShape: route.config?.errorShape ?? 'envelope' });
    }
  });
  // every response carries its request id, errors and 404s included; the logger puts it on every line. And no
  // API answer is kept by a cache (a browser's, a proxy's): balances, sales, customers and the console's accounts
  // are one account's or operator's own, read fresh each time (a route may still say otherwise)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    done();
  });

  installRequestLog(app as unknown as FastifyInstance, log, accessLoggerOf(log));
  app.addHook('onRoute', (route) => shapes.record(route));
  capConnectionsPerSource(app.server, config.httpMaxConnectionsPerIp);
  const silent = watchSilentConnections(app.server, config.httpHeadersTimeoutMs);
  app.addHook('preClose', (done) => {
    silent.closeSilent();
    done();
  });
  installJsonParser(app);
  await app.register(cookie);
  await installOpenApi(app);

  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    // a route with two doors answers each in its own family: the door the request came in by set it
    const shape = request.errorShape ?? request.routeOptions.config?.errorShape ?? 'envelope';
    const appErr = toAppError(err);
    const status = statusOf(appErr);
    // a 500 is the gateway's own fault; a 502/503 is a processor's or the database's, answered as documented
    if (appErr instanceof ChargeShed) request.log.debug('charge refused: the process is busy');
    else if (appErr.code === 'SERVICE_UNAVAILABLE')
      request.log.warn({ err }, 'request refused: database unavailable');
    else if (status === 500) request.log.error({ err }, 'request failed');
    else if (status > 500)
      request.log.warn({ err }, 'request failed: the payment processor did not answer as expected');
    const route = request.routeOptions.url;
    // every 429, whichever limit refused it (the rate limits, a login lockout, uploads, invitations)
    if (appErr.code === 'RATE_LIMITED') rateLimited.inc({ route: route ?? 'unmatched' });
    const config = request.routeOptions.config;
    if (route && !listsCode(route, request.method, config?.errors, appErr.code, config?.permission)) {
      request.log.warn(
        { code: appErr.code, route: `${request.method} ${route}` },
        'answered an error code missing from the route’s catalogue',
      );
    }
    // a forced shape, or a 503 of a route whose own 503 is another body (a PSP's webhook), may not be among
    // the route's declared response schemas: sent as is
    if (
      (appErr instanceof HttpError && appErr.shape) ||
      appErr.code === 'SERVICE_UNAVAILABLE' ||
      request.errorShape
    ) {
      reply.serializer(JSON.stringify);
    }
    const ruleInRouteFamily =
      isBusinessRuleCode(appErr.code) && declaresRuleInOwnFamily(request.routeOptions.schema, status);
    void reply
      .code(status)
      .headers(headersOf(appErr))
      .header('content-type', 'application/json; charset=utf-8')
      .send(renderError(appErr, shape, ruleInRouteFamily));
  });

  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(renderError(new AppError('NOT_FOUND', `No route ${request.method} ${request.url}`), 'envelope'));
  });

  return app;
}

function toAppError(err: FastifyError | AppError): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError;
  if (fe.validation) {
    const issues = meantAlternative(fe.validation);
    const first = issues[0];
    const where = first?.instancePath
      ? `${fe.validationContext ?? 'body'}${first.instancePath}`
      : (fe.validationContext ?? 'request');
    return new AppError(
      'VALIDATION_ERROR',
      `Invalid ${where}: ${plainReason(issues) ?? first?.message ?? fe.message}`,
    );
  }
  // the primary is lost (a failover): nothing of this request committed, or a lost COMMIT left it unknown;
  // either way the client retries, with its Idempotency-Key where the route takes one
  if (isDatabaseUnavailable(err)) {
    return new HttpError('SERVICE_UNAVAILABLE', 'The database is unavailable: retry shortly', undefined, {
      'retry-after': String(RETRY_AFTER_SECONDS),
    });
  }
  const pgCode = (err as { code?: unknown }).code;
  if (pgCode === '22021' || pgCode === '22P05') {
    // PostgreSQL refused a character (NUL in text or JSON): bad input, and the failed statement wrote nothing
    return new AppError('VALIDATION_ERROR', 'Text fields must not contain NUL characters');
  }
  if (fe.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body larger than 1 MiB');
  if (fe.statusCode === 415) return new AppError('VALIDATION_ERROR', 'Content-Type must be application/json');
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('VALIDATION_ERROR', fe.message || 'Bad request');
  }
  return new AppError('INTERNAL_ERROR', 'Internal server error');
}

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/**
 * A union of objects (`card: {token} | {cardId}`) fails once per alternative, the first one's first: told as it
 * is, `{cardId: "abc"}` read "must have required property 'token'". The alternative the client meant is the one
 * that failed inside a field of the object (its cardId is no uuid); with none, what each alternative asks for,
 * together (`must have "token" or "cardId"`, or only one of them).
 */
function meantAlternative(issues: ValidationIssue[]): ValidationIssue[] {
  const union = issues.find((i) => i.keyword === 'anyOf');
  if (!union) return issues;
  const at = union.instancePath;
  const inside = issues.find((i) => i.instancePath.startsWith(`${at}/`));
  if (inside) return [inside];
  const own = issues.filter((i) => i !== union && i.instancePath === at);
  const names = (keyword: string, param: string) =>
    own.every((i) => i.keyword === keyword)
      ? [...new Set(own.map((i) => (i.params as Record<string, string>)[param]))].map((n) =>
          JSON.stringify(n),
        )
      : [];
  const missing = names('required', 'missingProperty');
  if (missing.length > 1) {
    return [{ ...union, message: `must have ${missing.slice(0, -1).join(', ')} or ${missing.at(-1)}` }];
  }
  const extra = names('additionalProperties', 'additionalProperty');
  if (extra.length > 1) {
    return [{ ...union, message: `must have only one of ${extra.join(', ')}` }];
  }
  return issues;
}

/**
 * A union of literals fails with one "must be equal to constant" per branch: say which values are allowed
 * instead (`must be one of "full", "read"`); a union of types, which each it may be; a field the route does
 * not take is named.
 */
function plainReason(issues: ValidationIssue[]): string | undefined {
  const first = issues[0];
  if (first?.keyword === 'additionalProperties') {
    const field = (first.params as { additionalProperty?: string }).additionalProperty;
    // the name is the client's own text: a few characters of it are enough to find it
    return field === undefined
      ? undefined
      : `must NOT have additional properties: ${JSON.stringify(field.slice(0, 64))} is not a field it takes`;
  }
  if (first?.keyword === 'type') {
    // a union of types fails once per branch ("must be number", then "must be string"): name them all
    const types = [
      ...new Set(
        issues
          .filter((i) => i.keyword === 'type' && i.instancePath === first.instancePath)
          .flatMap((i) => [(i.params as { type?: string | string[] }).type ?? []].flat()),
      ),
    ];
    if (types.length < 2) return undefined;
    // JSON numbers past a double's range (1e400) are read as Infinity, which no number type admits
    const word = (t: string) =>
      t === 'integer'
        ? 'a whole number'
        : t === 'number'
          ? 'a finite number'
          : /^[aeiou]/.test(t)
            ? `an ${t}`
            : `a ${t}`;
    const words = types.map(word);
    return `must be ${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
  }
  if (first?.keyword === 'enum') {
    const values = (first.params as { allowedValues?: unknown[] }).allowedValues;
    return values ? `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}` : undefined;
  }
  if (first?.keyword !== 'const') return undefined;
  const values = issues
    .filter((i) => i.keyword === 'const' && i.instancePath === first.instancePath)
    .map((i) => JSON.stringify((i.params as { allowedValue?: unknown }).allowedValue));
  return values.length > 1 ? `must be one of ${values.join(', ')}` : `must be ${values[0]}`;
}

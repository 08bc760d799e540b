import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { type ErrorShape, renderError, statusOf } from './errors.js';

interface RouteShape {
  method: string;
  path: RegExp;
  shape: ErrorShape;
}

/**
 * Errors raised before a route is matched (bad percent-encoding, a path parameter past the router's limit, a
 * header block too large, a client too slow) are rendered in the shape of the route the path would have
 * reached, so a client of /api/transactions/{id} sees the transaction body there too. Unmatched paths get the envelope.
 */
export class RouteShapes {
  private readonly routes: RouteShape[] = [];

  record(route: RouteOptions): void {
    const shape = route.config?.errorShape;
    if (!shape) return;
    const pattern = route.url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    for (const method of [route.method].flat()) {
      this.routes.push({ method, path: new RegExp(`^${pattern}$`), shape });
    }
  }

  shapeOf(method: string, url: string): ErrorShape {
    const path = url.split('?')[0] ?? '';
    return this.routes.find((r) => r.method === method && r.path.test(path))?.shape ?? 'envelope';
  }
}

function frameworkAppError(code: string | undefined): AppError {
  if (code === 'FST_ERR_BAD_URL')
    return new AppError('VALIDATION_ERROR', 'Path is not valid percent-encoding');
  return new AppError('VALIDATION_ERROR', 'Bad request');
}

/** Fastify's `frameworkErrors` option. */
export function frameworkErrorHandler(shapes: RouteShapes) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const appErr = frameworkAppError(err.code);
    void reply
      .code(statusOf(appErr))
      .header('x-request-id', request.id)
      .header('content-type', 'application/json; charset=utf-8')
      .send(renderError(appErr, shapes.shapeOf(request.method, request.url)));
  };
}

/** Fastify's `clientErrorHandler` option: Node's HTTP parser refused the request before Fastify saw it. */
export function clientErrorHandler(shapes: RouteShapes) {
  return (err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const appErr =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('REQUEST_TIMEOUT', 'Request not received in time')
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? new AppError('HEADERS_TOO_LARGE', 'Request headers too large')
          : new AppError('VALIDATION_ERROR', 'Malformed HTTP request');
    const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 4096).toString('latin1') : '';
    const [method = '', url = ''] = raw.split('\r\n', 1)[0]!.split(' ');
    const body = JSON.stringify(renderError(appErr, shapes.shapeOf(method, url)));
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${statusOf(appErr)} ${reason(statusOf(appErr))}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${randomUUID()}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(err);
  };
}

function reason(status: number): string {
  return ({ 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' } as const)[
    status as 400
  ];
}

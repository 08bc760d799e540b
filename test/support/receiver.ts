import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { waitUntil } from './wait.js';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes as they arrived. */
  body: Buffer;
  at: number;
}

/** What the receiver does with one request: answer a status, never answer, or drop the connection. */
export type Behaviour = { status: number; body?: string } | 'hang' | 'close';
/** A fixed behaviour, or one chosen per request (e.g. by its event id and how often it came before). */
export type Fallback = Behaviour | ((request: Received) => Behaviour);

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Behaviours for the next requests, in order; afterwards `fallback` applies (default 200). */
  queue(...behaviours: Behaviour[]): void;
  setFallback(behaviour: Fallback): void;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real HTTP server on a free port that records every request's raw bytes and headers. */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = [];
  const pending: Behaviour[] = [];
  let fallback: Fallback = { status: 200 };
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      received.push(request);
      const b = pending.shift() ?? (typeof fallback === 'function' ? fallback(request) : fallback);
      if (b === 'hang') {
        hung.add(res);
        return;
      }
      if (b === 'close') {
        req.socket.destroy();
        return;
      }
      res.writeHead(b.status, { 'content-type': 'text/plain' }).end(b.body ?? 'ok');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    received,
    queue: (...b) => pending.push(...b),
    setFallback: (b) => {
      fallback = b;
    },
    waitFor: (count, timeoutMs = 30000) =>
      waitUntil(
        () => (received.length >= count ? received : undefined),
        timeoutMs,
        () => `receiver got ${received.length} of ${count} requests`,
      ),
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** A TCP listener that accepts every connection and never answers (nor reads): a host that hangs. */
export interface BlackHole {
  url: string;
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startBlackHole(host = '127.0.0.1'): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createNetServer((s) => {
    accepted++;
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    connections: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

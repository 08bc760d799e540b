import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  /** How many times an event id arrived (answered 2xx, for a receiver that accepts). */
  times(id: string): number;
  close(): Promise<void>;
}

/** A webhook receiver on a free local port: answers `status` after `delayMs`, counting each event id. */
export async function startReceiver(delayMs: number, status = 200): Promise<Receiver> {
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = () => {
        const id = String(req.headers['x-service-event-id']);
        if (status < 300) seen.set(id, (seen.get(id) ?? 0) + 1);
        res.writeHead(status).end();
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    times: (id) => seen.get(id) ?? 0,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

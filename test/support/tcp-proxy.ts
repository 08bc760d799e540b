import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** From now on nothing passes either way and new connections are held unanswered: a host that vanished. */
  blackhole(): void;
  /** For `ms`, new connections are held unanswered (a host too busy to accept); those already open still pass. */
  holdNew(ms: number): void;
  close(): Promise<void>;
}

/** A TCP relay to 127.0.0.1:`targetPort` that can turn into a black hole (a network partition, no RST). */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let dark = false;
  let holdUntil = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (dark || Date.now() < holdUntil) return;
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('data', (d) => {
      if (!dark) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!dark) client.write(d);
    });
    client.on('end', () => {
      if (!dark) upstream.end();
    });
    upstream.on('end', () => {
      if (!dark) client.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    blackhole: () => {
      dark = true;
    },
    holdNew: (ms) => {
      holdUntil = Date.now() + ms;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

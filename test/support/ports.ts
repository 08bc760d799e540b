import { createServer } from 'node:net';

/**
 * A port free now, below Linux's ephemeral range (32768–60999), for a server a test starts on a port it must
 * know beforehand. One the kernel handed out for listen(0) could be taken, between this check and the server's
 * bind, by an outgoing connection's local port (EADDRINUSE, seen in full runs); a port under the range is never
 * given to one.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections that have not sent a byte. Node's limits start with a request (the headers' time is counted from
 * its first byte), and a connection with none is neither idle nor busy to it: a client that connects and sends
 * nothing (a browser's preconnect, a slow-loris that never begins) is held until it leaves, and `server.close()`
 * waits for it as long (Chromium keeps such a socket about a minute). Such a connection is closed once it has
 * sent nothing for the headers' time limit, and at once when the server closes (`closeSilent`); a connection that
 * has sent a request is left to Node and Fastify, as before.
 */
export function watchSilentConnections(server: Server, headersTimeoutMs: number): { closeSilent(): void } {
  const silent = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    silent.set(socket, Date.now());
    socket.once('close', () => silent.delete(socket));
  });
  const sweep = () => {
    const due = closing ? Number.POSITIVE_INFINITY : Date.now() - headersTimeoutMs;
    for (const [socket, at] of silent) {
      if (socket.bytesRead > 0) silent.delete(socket);
      else if (at <= due) socket.destroy();
    }
  };
  const timer = setInterval(sweep, 1000);
  timer.unref();
  server.once('close', () => clearInterval(timer));
  return {
    closeSilent() {
      // and any that connect before the server stops listening, at the next sweep
      closing = true;
      sweep();
    },
  };
}

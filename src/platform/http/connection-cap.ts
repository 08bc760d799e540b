import type { Server } from 'node:http';

/**
 * One source address may hold at most `max` open connections; a connection past the cap is closed at once,
 * before any byte is read, so one client cannot exhaust the process's file descriptors. Counted per socket
 * peer address: behind a proxy (TRUST_PROXY) that is the proxy, so raise the cap or set 0 (off) there.
 */
export function capConnectionsPerSource(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const source = socket.remoteAddress ?? '';
    const count = (open.get(source) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(source, count);
    socket.once('close', () => {
      const left = (open.get(source) ?? 1) - 1;
      if (left <= 0) open.delete(source);
      else open.set(source, left);
    });
  });
}

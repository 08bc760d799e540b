import { connect } from 'node:net';

/** Sends `text` as-is on a new loopback connection and returns everything the server wrote before closing. */
export function rawRequest(
  baseUrl: string,
  text: string,
): Promise<{ status: number; head: string; body: string }> {
  const port = Number(new URL(baseUrl).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      out += d;
    });
    socket.on('error', (err) => (out ? undefined : reject(err)));
    socket.on('close', () => {
      const [head = '', body = ''] = out.split('\r\n\r\n', 2);
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
  });
}

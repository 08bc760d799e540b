import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * A latency probe on a thread of its own (probeApart, bench/lib.ts): GET `url` `rate` times a second for
 * `seconds`, each request sent on its schedule whether or not the one before has answered, over keep-alive
 * connections; answers every request's latency (ms, from its send to its last byte) and status.
 */
const { url, headers, rate, seconds } = workerData as {
  url: string;
  headers: Record<string, string>;
  rate: number;
  seconds: number;
};
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const samples: { at: number; ms: number; status: number }[] = [];
const start = performance.now();
parentPort!.postMessage('started');
const total = Math.round(rate * seconds);
await new Promise<void>((resolve) => {
  let sent = 0;
  let done = 0;
  const send = () => {
    const at = performance.now();
    const req = http.get(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        samples.push({ at: at - start, ms: performance.now() - at, status: res.statusCode ?? 0 });
        if (++done === total) resolve();
      });
    });
    req.on('error', () => {
      samples.push({ at: at - start, ms: performance.now() - at, status: 0 });
      if (++done === total) resolve();
    });
    if (++sent < total) setTimeout(send, start + (sent * 1000) / rate - performance.now());
  };
  send();
});
agent.destroy();
parentPort!.postMessage(samples);

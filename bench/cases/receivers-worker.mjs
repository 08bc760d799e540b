/**
 * (plain JavaScript: worker threads do not get tsx's loader for their entry module)
 * Webhook receivers on their own thread: they answer 200 at once whatever the benchmark's main thread is
 * doing (recording facts, running the baseline client). Each remembers when it first saw each event id.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {{ hosts: string[], counter: SharedArrayBuffer }} */
const { hosts, counter } = workerData;
const received = new Int32Array(counter);
const firstSeen = new Map();
const servers = [];

for (const host of hosts) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-service-event-id']);
      if (!firstSeen.has(id)) {
        firstSeen.set(id, performance.timeOrigin + performance.now());
        Atomics.add(received, 0, 1);
      }
      res.writeHead(200).end();
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  servers.push(server);
}

parentPort.on('message', (msg) => {
  if (msg === 'reset') {
    firstSeen.clear();
    Atomics.store(received, 0, 0);
    parentPort.postMessage('reset');
  } else if (msg === 'collect') parentPort.postMessage([...firstSeen]);
  else for (const s of servers) s.close(() => undefined);
});
parentPort.postMessage(servers.map((s, i) => `http://${hosts[i]}:${s.address().port}/hook`));

import autocannon from 'autocannon';
import { fundedMerchant, startBenchServer } from './lib.js';

const server = await startBenchServer(JSON.parse(process.env.EXP_ENV ?? '{}'));
const m = await fundedMerchant(server.db);
const r = await autocannon({
  url: `${server.url}${process.env.EXP_PATH ?? '/api/public/balance'}`,
  headers: m.keys,
  connections: 50,
  duration: 8,
});
console.log(r.requests.average, r.non2xx);
await server.stop();

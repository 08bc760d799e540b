/**
 * Dispute evidence is checked before it is read: 40 uploads at once of 10 files of 5 MB to a dispute that does
 * not exist, and to a real one past the limits, against a real gateway process, must leave its memory where it
 * was (within 100 MB of its start), with nothing stored.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputeMerchant, openDispute, paidSale } from '../disputes/fixtures.js';
import type { TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { peakDuring } from '../support/memory.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';

let setup: TestServer;
let gateway: ChildServer;
let merchant: TestMerchant;

beforeAll(async () => {
  setup = await startServer({ workers: false });
  gateway = await spawnGateway(['serve'], { DATABASE_URL: setup.databaseUrl, DATA_DIR: setup.env.DATA_DIR! });
  merchant = await disputeMerchant(setup);
});
afterAll(async () => {
  await gateway?.stop();
  await setup?.close();
});

const MB = 1024 * 1024;

/** A PDF-looking file of `bytes` (one buffer reused: the sender holds no upload whole). */
const fileOf = (bytes: number) => {
  const b = Buffer.alloc(bytes, 0x20);
  b.write('%PDF-1.7\n');
  return b;
};

/**
 * Sends a multipart answer of `files` files, chunked (no declared length: the server must count as it reads),
 * writing as the socket drains. The answer's status, or `reset` when the server closed before answering.
 */
function upload(url: string, headers: Record<string, string>, files: number, file: Buffer) {
  return new Promise<number | 'reset'>((resolve) => {
    const boundary = `----gw${Math.random().toString(16).slice(2)}`;
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    let done = false;
    const finish = (outcome: number | 'reset') => {
      if (done) return;
      done = true;
      resolve(outcome);
    };
    req.on('response', (res) => {
      res.resume();
      finish(res.statusCode ?? 0);
    });
    req.on('error', () => finish('reset'));
    const parts = (function* () {
      for (let i = 0; i < files; i++) {
        yield Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="e${i}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
        );
        for (let at = 0; at < file.length; at += 256 * 1024) yield file.subarray(at, at + 256 * 1024);
        yield Buffer.from('\r\n');
      }
      yield Buffer.from(`--${boundary}--\r\n`);
    })();
    const write = () => {
      for (let next = parts.next(); !next.done; next = parts.next()) {
        if (done || req.destroyed) return;
        if (!req.write(next.value)) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

async function attack(url: string, files: number, file: Buffer, count = 40) {
  const outcomes = await Promise.all(
    Array.from({ length: count }, () => upload(url, merchant.keys, files, file)),
  );
  const tally: Record<string, number> = {};
  for (const o of outcomes) tally[String(o)] = (tally[String(o)] ?? 0) + 1;
  return tally;
}

describe('dispute evidence uploads are checked before they are read', () => {
  it('40 at once of 10 × 5 MB to a dispute that does not exist: 404 (or cut), RSS within 100 MB', async () => {
    const pid = gateway.process.pid!;
    await call('GET', `${gateway.url}/api/public/balance`, { headers: merchant.keys }); // warm
    let tally: Record<string, number> = {};
    const { start, peak } = await peakDuring(pid, async () => {
      tally = await attack(
        `${gateway.url}/api/disputes/6f1c2b8e-7d14-4f3a-9b6e-1c2d3e4f5a6b/evidence`,
        10,
        fileOf(5 * MB),
      );
    });
    console.log(
      `evidence to an unknown dispute: ${JSON.stringify(tally)}; gateway RSS ${start.toFixed(0)} MB at start, peak ${peak.toFixed(0)} MB (+${(peak - start).toFixed(0)})`,
    );
    expect(Object.keys(tally).every((k) => k === '404' || k === 'reset')).toBe(true);
    expect(tally['404'] ?? 0).toBeGreaterThan(0);
    expect(peak - start).toBeLessThan(100);
  });

  it('40 at once to a real dispute past the limits (11 files; files of 6 MB): refused, nothing stored, RSS within 100 MB', async () => {
    const sale = await paidSale(setup, merchant, 10000);
    const opened = await openDispute(setup, merchant, sale.uuid, { kind: 'med', reason: 'golpe' });
    expect(opened.status, opened.text).toBe(201);
    const url = `${gateway.url}/api/disputes/${opened.body.id}/evidence`;
    const pid = gateway.process.pid!;
    const tallies: Record<string, number>[] = [];
    const { start, peak } = await peakDuring(pid, async () => {
      tallies.push(await attack(url, 11, fileOf(5 * MB)));
      tallies.push(await attack(url, 10, fileOf(6 * MB)));
    });
    console.log(
      `evidence past the limits to a real dispute: 11 × 5 MB ${JSON.stringify(tallies[0])}, 10 × 6 MB ${JSON.stringify(tallies[1])}; gateway RSS ${start.toFixed(0)} MB at start, peak ${peak.toFixed(0)} MB (+${(peak - start).toFixed(0)})`,
    );
    for (const tally of tallies) {
      // the first read is refused by its limit (400 eleven files, 413 a file too large); the others find
      // the account's answer being read (429), or are cut off before their answer is read
      expect(Object.keys(tally).every((k) => ['400', '413', '429', 'reset'].includes(k))).toBe(true);
    }
    expect(tallies[0]!['400']).toBeGreaterThanOrEqual(1);
    // a 413 is answered before the body is read: on a busy machine the sender may meet the closed connection
    // (a reset) before it reads that answer
    expect((tallies[1]!['413'] ?? 0) + (tallies[1]!.reset ?? 0)).toBeGreaterThanOrEqual(1);
    expect(peak - start).toBeLessThan(100);
    const [row] = await setup.runtime.platform.db.query<{ status: string; n: number }>(
      `SELECT d.status, (SELECT count(*)::int FROM dispute_evidence e WHERE e.dispute_id = d.id) AS n
         FROM disputes d WHERE d.uuid = $1`,
      [opened.body.id],
    );
    expect(row).toEqual({ status: 'needs_response', n: 0 });
    // and the dispute still takes a right answer
    expect(await upload(url, merchant.keys, 2, fileOf(MB))).toBe(200);
  });
});

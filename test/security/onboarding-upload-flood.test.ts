/**
 * Onboarding documents are bounded (docs/security.md, "What is tested"): one signed-up account sends 96
 * documents of 10 MB at once, cycling through the four kinds a person sends, to a real gateway process, then
 * retries each refused one in turn until the gateway says the day is over. Stated bounds: the gateway's peak
 * RSS within 150 MB of its start (one document read at a time: its file, the database driver's copy of it,
 * and what the collector has not freed yet of the ones before); its database grown by at most 120 MB (ten
 * uploads a day of at most 10 MB, incompressible, stored in TOAST pages, and room for their rows and
 * indexes); the account left with exactly one current document per kind, at most 40 MB together, every
 * replaced one kept only as its hash.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.js';
import { peakDuring } from '../support/memory.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';

let setup: TestServer;
let gateway: ChildServer;

beforeAll(async () => {
  setup = await startServer({ workers: false });
  gateway = await spawnGateway(['serve'], {
    DATABASE_URL: setup.databaseUrl,
    DATA_DIR: setup.env.DATA_DIR!,
    SIGNUP: 'on',
  });
});
afterAll(async () => {
  await gateway?.stop();
  await setup?.close();
});

const MB = 1024 * 1024;
const KINDS = ['id_front', 'id_back', 'selfie', 'proof_of_address'] as const;

/**
 * A PDF-looking file of `bytes`, random past its header so that PostgreSQL cannot compress it (one buffer
 * shared by every upload: the sender holds none whole).
 */
const fileOf = (bytes: number) => {
  const b = randomBytes(bytes);
  b.write('%PDF-1.7\n');
  return b;
};

async function signUp(): Promise<Record<string, string>> {
  const res = await call<{ csrfToken: string }>('POST', `${gateway.url}/api/signup`, {
    body: {
      name: 'Loja do Ataque',
      legalName: 'Fulano de Tal',
      document: '52998224725',
      email: `flood-${randomBytes(5).toString('hex')}@example.com`,
      password: 'uma-senha-bem-longa',
      phone: '+55 11 98765-4321',
      address: {
        street: 'Rua A',
        number: '1',
        district: 'Centro',
        city: 'Recife',
        state: 'PE',
        zipCode: '50000-000',
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  const raw = [res.headers['set-cookie']].flat()[0] ?? '';
  return { cookie: raw.split(';')[0]!, 'x-csrf-token': res.body.csrfToken };
}

/**
 * Sends one document (kind, then the file) with its declared length, writing as the socket drains. Its
 * status, or `reset` when the server closed before answering.
 */
function upload(headers: Record<string, string>, kind: string, file: Buffer) {
  return new Promise<number | 'reset'>((resolve) => {
    const boundary = `----gw${randomBytes(8).toString('hex')}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\n${kind}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="doc.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const req = request(`${gateway.url}/api/onboarding/documents`, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + file.length + tail.length),
      },
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
      yield head;
      for (let at = 0; at < file.length; at += 256 * 1024) yield file.subarray(at, at + 256 * 1024);
      yield tail;
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

const databaseBytes = async () => {
  const [row] = await setup.runtime.platform.db.query<{ size: string }>(
    'SELECT pg_database_size(current_database()) AS size',
  );
  return Number(row!.size);
};

async function documentsOf(headers: Record<string, string>) {
  const state = await call<{ documents: { id: number; kind: string; sizeBytes: number }[] }>(
    'GET',
    `${gateway.url}/api/onboarding`,
    { headers },
  );
  expect(state.status).toBe(200);
  return state.body.documents;
}

describe('onboarding documents hold under a flood', () => {
  it('96 × 10 MB at once from one account, then every refused one retried: bounded database and memory, one document per kind', async () => {
    const panel = await signUp();
    const file = fileOf(10 * MB);
    await documentsOf(panel); // warm
    const sizeBefore = await databaseBytes();
    const tally: Record<string, number> = {};
    const count = (o: number | 'reset') => {
      tally[String(o)] = (tally[String(o)] ?? 0) + 1;
    };
    const retried: Record<string, number> = {};
    const retriedInOrder: string[] = [];
    const pid = gateway.process.pid!;
    const flood = await peakDuring(pid, async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 96 }, (_, i) => upload(panel, KINDS[i % KINDS.length]!, file)),
      );
      for (const o of outcomes) count(o);
    });
    const retries = await peakDuring(pid, async () => {
      // the attacker retries, one at a time, until the gateway answers that the day's uploads are spent
      for (let i = 0; i < 96; i++) {
        const o = await upload(panel, KINDS[i % KINDS.length]!, file);
        retried[String(o)] = (retried[String(o)] ?? 0) + 1;
        retriedInOrder.push(String(o));
        if (o === 429) break;
      }
    });
    const start = flood.start;
    const peak = Math.max(flood.peak, retries.peak);
    const grown = (await databaseBytes()) - sizeBefore;
    console.log(
      `onboarding flood: at once ${JSON.stringify(tally)}, retried ${JSON.stringify(retried)}; gateway RSS ${start.toFixed(0)} MB at start, peak ${flood.peak.toFixed(0)} MB in the flood and ${retries.peak.toFixed(0)} MB in the retries (+${(peak - start).toFixed(0)}); database +${(grown / MB).toFixed(0)} MB`,
    );
    // at once: the first is read, the others are refused before their body is read (or cut off)
    expect(Object.keys(tally).every((k) => ['201', '429', 'reset'].includes(k))).toBe(true);
    expect(tally['201'] ?? 0).toBeGreaterThanOrEqual(1);
    expect(Object.keys(retried).every((k) => ['201', '429', 'reset'].includes(k))).toBe(true);
    // a refusal sent before the body is read can reach the client as a reset while it still sends: only once
    // the day's uploads are spent (after the last 201), never in their place
    const lastAccepted = retriedInOrder.lastIndexOf('201');
    expect(retriedInOrder.slice(0, lastAccepted + 1)).not.toContain('reset');
    // ten a day in all, whatever the mix of the flood and the retries
    expect((tally['201'] ?? 0) + (retried['201'] ?? 0)).toBe(10);
    expect(retried['429']).toBe(1);

    expect(peak - start).toBeLessThan(150);
    expect(grown).toBeLessThan(120 * MB);

    const documents = await documentsOf(panel);
    expect(documents.map((d) => d.kind).sort()).toEqual([...KINDS].sort());
    expect(documents.reduce((sum, d) => sum + d.sizeBytes, 0)).toBeLessThanOrEqual(40 * MB);
    const rows = await setup.runtime.platform.db.query<{ kind: string; current: number; kept: number }>(
      `SELECT kind, count(*) FILTER (WHERE replaced_at IS NULL)::int AS current,
              count(*) FILTER (WHERE content IS NOT NULL)::int AS kept
         FROM onboarding_documents
        WHERE account_id = (SELECT account_id FROM onboarding_documents WHERE id = $1)
        GROUP BY kind ORDER BY kind`,
      [documents[0]!.id],
    );
    expect(rows).toEqual([...KINDS].sort().map((kind) => ({ kind, current: 1, kept: 1 })));
  });

  it("an account's current documents are at most 40 MB together; past that, refused before the file is read", async () => {
    const panel = await signUp();
    const file = fileOf(10 * MB);
    for (const kind of KINDS) expect(await upload(panel, kind, file)).toBe(201);
    const fifth = await upload(panel, 'company_contract', fileOf(MB));
    expect([413, 'reset']).toContain(fifth);
    // a smaller one of a kind already sent fits: it replaces the larger
    expect(await upload(panel, 'selfie', fileOf(MB))).toBe(201);
    expect(await upload(panel, 'company_contract', fileOf(MB))).toBe(201);
    const documents = await documentsOf(panel);
    expect(documents).toHaveLength(5);
    expect(documents.reduce((sum, d) => sum + d.sizeBytes, 0)).toBe(32 * MB);
  });
});

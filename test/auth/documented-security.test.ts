import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

/**
 * The API document's `security` of every operation, checked against what the route's own hooks do: each door it
 * names opens the route, no credential is refused with 401, and a credential of a door it does not name is refused
 * too. The document is generated from URL rules and the hooks are attached route by route: this walk is what keeps
 * the two from drifting apart.
 */
let server: TestServer;
let merchant: TestMerchant;
let operator: TestOperator;
const METRICS_TOKEN = 'metrics-token-for-the-walk';

beforeAll(async () => {
  server = await startServer({ env: { METRICS_TOKEN } });
  merchant = await createMerchant(server, 'Portas');
  operator = await createOperator(server, 'admin');
});
afterAll(async () => {
  await server?.close();
});

type Door = 'keyPair' | 'publicKey' | 'session' | 'operator' | 'metrics';
type Operation = { security?: Record<string, string[]>[] };

/** A documented security alternative as the door it names. */
function doorOf(alternative: Record<string, string[]>): Door {
  const schemes = Object.keys(alternative).sort().join('+');
  const doors: Record<string, Door> = {
    'privateKey+publicKey': 'keyPair',
    publicKey: 'publicKey',
    session: 'session',
    'csrf+session': 'session',
    operatorSession: 'operator',
    'csrf+operatorSession': 'operator',
    metricsToken: 'metrics',
  };
  const door = doors[schemes];
  if (!door) throw new Error(`a security alternative no door matches: ${schemes}`);
  return door;
}

function credentials(door: Door): Record<string, string> {
  switch (door) {
    case 'keyPair':
      return merchant.keys;
    case 'publicKey':
      return { 'x-api-public-key': merchant.publicKey };
    case 'session':
      return merchant.panel;
    case 'operator':
      return operator.ops;
    case 'metrics':
      return { authorization: `Bearer ${METRICS_TOKEN}` };
  }
}

/** Sign-outs end the very sessions the walk uses: they are called last. */
const endsASession = (path: string) => /\/logout$/.test(path);

/** The answer's status and the start of its body: a stream (the payer's live status) is not read to its end. */
async function send(method: string, path: string, headers: Record<string, string>) {
  const url = `${server.url}${path.replace(/\{[^}]+\}/g, '999999999')}`;
  const withBody = method !== 'GET' && method !== 'DELETE';
  const res = await request(url, {
    method: method as 'GET',
    headers: withBody ? { ...headers, 'content-type': 'application/json' } : headers,
    ...(withBody ? { body: '{}' } : {}),
  });
  let text = '';
  if (String(res.headers['content-type']).startsWith('text/event-stream')) res.body.destroy();
  else text = (await res.body.text()).slice(0, 300);
  return { status: res.statusCode, text };
}

const refusedByDoor = (status: number) => status === 401;

describe('every route’s documented authentication is what its hooks do', () => {
  it('each route: refused (401) without credentials or through a door it does not name, let in through each it names', {
    timeout: 300_000,
  }, async () => {
    const doc = await call<{ paths: Record<string, Record<string, Operation>> }>(
      'GET',
      `${server.url}/openapi.json`,
    );
    const walks: { method: string; path: string; doors: Door[] }[] = [];
    for (const [path, ops] of Object.entries(doc.body.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (method === 'head' || method === 'parameters') continue;
        walks.push({ method: method.toUpperCase(), path, doors: (op.security ?? []).map(doorOf) });
      }
    }
    walks.sort((a, b) => Number(endsASession(a.path)) - Number(endsASession(b.path)));
    const wrong: string[] = [];
    const seen = new Set<Door>();
    for (const { method, path, doors } of walks) {
      const label = `${method} ${path} [${doors.join(' | ') || 'open'}]`;
      const bare = await send(method, path, {});
      if (doors.length > 0 && !refusedByDoor(bare.status)) {
        wrong.push(`${label}: without credentials answered ${bare.status}, not 401`);
      }
      if (doors.length === 0 && refusedByDoor(bare.status)) {
        wrong.push(`${label}: documented open, answered 401 ${bare.text}`);
      }
      for (const door of doors) {
        seen.add(door);
        const res = await send(method, path, credentials(door));
        // a step-up route let the session in and then refused the empty confirmation ({} has no password)
        const stepUp = res.status === 401 && /"Wrong password"/.test(res.text);
        if ((refusedByDoor(res.status) && !stepUp) || res.status === 403) {
          wrong.push(`${label}: through ${door} answered ${res.status} ${res.text}`);
        }
      }
      // a door the document does not name is shut (a panel cookie on a key route, a merchant's on the console)
      if (doors.length > 0) {
        for (const other of ['keyPair', 'session', 'operator'] as const) {
          // a key pair carries the public key: it is no other door to a route the public key opens
          if (doors.includes(other) || (other === 'keyPair' && doors.includes('publicKey'))) continue;
          const res = await send(method, path, credentials(other));
          if (!refusedByDoor(res.status)) {
            wrong.push(`${label}: through undocumented ${other} answered ${res.status}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect([...seen].sort()).toEqual(['keyPair', 'metrics', 'operator', 'publicKey', 'session']);
    expect(walks.length).toBeGreaterThan(150); // the whole document was walked, not an empty one
  });
});

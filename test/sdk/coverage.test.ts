/**
 * Both SDKs cover the API document: every operation of the gateway's /openapi.json that an API key opens (its
 * `security` names publicKey or privateKey) has a method in the TypeScript SDK (sdk/src ROUTES) and in the
 * Python SDK (gateway_sdk.client.ROUTES), and every entry of those tables is an operation of the document.
 * Each table is held to its SDK's methods too: every method is called against a recorder (no gateway) and the
 * request it makes must be the one its entry names, and a method missing from the table fails
 * (sdk-python/tests/test_routes.py for Python). A few new methods are then called against the gateway.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway, ROUTES } from '../../sdk/src/index.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { fundMerchant } from '../support/ledger.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

const PYTHON = process.env.PYTHON || 'python3';
const SDK_PYTHON = path.resolve(import.meta.dirname, '../../sdk-python');

type Operations = Map<string, { keyed: boolean }>;

let server: TestServer;
let merchant: TestMerchant;
let receiver: Receiver;
let operations: Operations;

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server, 'SDK Coverage');
  receiver = await startReceiver();
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
    security?: Record<string, string[]>[];
    paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  };
  operations = new Map();
  for (const [route, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const schemes = (op.security ?? doc.security ?? []).flatMap((r) => Object.keys(r));
      const keyed = schemes.includes('publicKey') || schemes.includes('privateKey');
      operations.set(`${method.toUpperCase()} ${route}`, { keyed });
    }
  }
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

/** What a table of an SDK lacks and what it names wrongly, against the document. */
function against(table: Record<string, string>) {
  const named = new Set(Object.values(table));
  const keyed = [...operations].filter(([, op]) => op.keyed).map(([route]) => route);
  return {
    keyed,
    // an API-key operation no method calls
    missing: keyed.filter((route) => !named.has(route)).sort(),
    // an entry that is no operation of the document, or one no key opens
    unknown: Object.entries(table)
      .filter(([, route]) => {
        const op = operations.get(route);
        return !op?.keyed;
      })
      .map(([name, route]) => `${name}: ${route}`),
  };
}

/** The table's methods a README does not list: each must be on a line naming its resource (`gateway.recipients`). */
function unlisted(readme: string, client: string, names: string[]) {
  const lines = readFileSync(path.resolve(import.meta.dirname, '../..', readme), 'utf8').split('\n');
  return names.filter((name) => {
    const resource = name.slice(0, name.lastIndexOf('.'));
    const method = name.slice(name.lastIndexOf('.') + 1);
    return !lines.some((line) => line.includes(`${client}.${resource}`) && line.includes(`.${method}(`));
  });
}

function runPython(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(PYTHON, args, {
      cwd: SDK_PYTHON,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

/** Every function of the client's resources (nested ones too), by dotted name. */
function methodsOf(obj: object, prefix = ''): [string, (...args: unknown[]) => unknown][] {
  return Object.entries(obj).flatMap(([name, value]): [string, (...args: unknown[]) => unknown][] => {
    if (typeof value === 'function') return [[`${prefix}${name}`, value as (...args: unknown[]) => unknown]];
    if (value && typeof value === 'object') return methodsOf(value, `${prefix}${name}.`);
    return [];
  });
}

const pattern = (route: string) => {
  const [method, path] = route.split(' ') as [string, string];
  // a path parameter is one of the arguments the method was given (p0, p1, …), never a constant
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, 'p[0-9]+');
  return new RegExp(`^${method} ${escaped}$`);
};

describe('the TypeScript SDK', () => {
  it('has a method for every API-key operation of /openapi.json, and names no other', () => {
    const { keyed, missing, unknown } = against(ROUTES);
    expect(keyed.length).toBeGreaterThan(50);
    expect(missing).toEqual([]);
    expect(unknown).toEqual([]);
  });

  it('sdk/README.md lists every method', () => {
    expect(unlisted('sdk/README.md', 'gateway', Object.keys(ROUTES))).toEqual([]);
  });

  it('each method makes the request ROUTES names, and ROUTES names every method', async () => {
    const sent: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      sent.push(`${init?.method ?? 'GET'} ${url.pathname}`);
      return new Response(JSON.stringify({ data: [], nextCursor: null }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof fetch;
    try {
      const gateway = new Gateway({ baseUrl: 'http://sdk.invalid', publicKey: 'pk', privateKey: 'sk' });
      const methods = methodsOf(gateway);
      expect(methods.map(([name]) => name).sort()).toEqual(Object.keys(ROUTES).sort());
      for (const [name, method] of methods) {
        sent.length = 0;
        // placeholders the path shows (p0, p1, …); a String object also reads as an empty options object
        const args = Array.from({ length: method.length }, (_, i) => new String(`p${i}`));
        const result = method(...args);
        if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
          for await (const _ of result as AsyncIterable<unknown>);
        } else await result;
        expect(sent, name).toHaveLength(1);
        expect(sent[0], name).toMatch(pattern(ROUTES[name as keyof typeof ROUTES]));
      }
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it('reaches the gateway with the new methods: fees, webhooks, cashouts in cents, the sandbox withdrawal', async () => {
    const gateway = new Gateway({
      baseUrl: server.url,
      publicKey: merchant.publicKey,
      privateKey: merchant.privateKey,
    });
    expect((await gateway.fees.retrieve()).source).toBeDefined();

    const hook = await gateway.webhooks.create({ webhookUrl: receiver.url, events: ['*'] });
    const updated = await gateway.webhooks.update(hook.id, { events: ['sale.paid', 'sale.refunded'] });
    expect(updated.events).toEqual(['sale.paid', 'sale.refunded']);
    const { eventId } = await gateway.webhooks.test(hook.id);
    expect(eventId).toBeTruthy();
    await receiver.waitFor(1);
    const [delivery] = await waitUntil(async () => {
      const list = await gateway.webhooks.deliveries(hook.id, { limit: 5 });
      return list.length > 0 && list.every((d) => d.status !== 'PENDING') && list;
    });
    expect(delivery!.eventId).toBe(eventId);
    expect((await gateway.webhooks.resend(delivery!.id)).eventId).toBe(eventId);
    expect((await gateway.webhooks.rotateSecret(hook.id)).secret).toMatch(/^whsec_/);
    expect(await gateway.webhooks.stats(hook.id, { hours: 1 })).toHaveProperty('delivered');
    await gateway.webhooks.delete(hook.id);
    expect(await gateway.webhooks.list()).toEqual([]);

    await fundMerchant(server.runtime.platform.db, merchant.accountId, 50_000);
    const cashout = await gateway.cashouts.create({
      amountCents: 15_000,
      pixKey: '52998224725',
      pixKeyType: 'CPF',
    });
    expect(cashout.amount).toBe('150.00');
    await waitUntil(async () => (await gateway.cashouts.retrieve(cashout.uuid)).status === 'PROCESSING');
    expect((await gateway.sandbox.completeWithdrawal(cashout.uuid)).status).toBe('COMPLETED');
    await expect(
      // biome-ignore lint/suspicious/noExplicitAny: a caller without types sending both
      gateway.cashouts.create({ amount: '150.00', amountCents: 15_000, pixKey: '52998224725' } as any),
    ).rejects.toThrow(/not both/);
  }, 60_000);
});

describe('the Python SDK', () => {
  it('has a method for every API-key operation of /openapi.json, and names no other', async () => {
    const ran = await runPython([
      '-c',
      'import json; from gateway_sdk.client import ROUTES; print(json.dumps(ROUTES))',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const table = JSON.parse(ran.stdout) as Record<string, string>;
    const { missing, unknown } = against(table);
    expect(missing).toEqual([]);
    expect(unknown).toEqual([]);
    expect(unlisted('sdk-python/README.md', 'gw', Object.keys(table))).toEqual([]);
  });

  it('each method makes the request ROUTES names, and ROUTES names every method (tests.test_routes)', async () => {
    const ran = await runPython(['-m', 'unittest', '-v', 'tests.test_routes']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(/^OK$/m);
  });

  it('reaches the gateway with the new methods: webhooks, a cashout in cents, the sandbox withdrawal', async () => {
    const other = await createMerchant(server, 'SDK Coverage Python');
    await fundMerchant(server.runtime.platform.db, other.accountId, 50_000);
    const script = `
import json, sys, time
from gateway_sdk import Gateway
gw = Gateway(base_url=sys.argv[1], public_key=sys.argv[2], private_key=sys.argv[3])
out = {"fees": gw.fees.retrieve()["source"]}
hook = gw.webhooks.create({"webhookUrl": sys.argv[4], "events": ["*"]})
out["updated"] = gw.webhooks.update(hook["id"], events=["sale.paid"])["events"]
out["test"] = bool(gw.webhooks.test(hook["id"])["eventId"])
for _ in range(100):
    deliveries = gw.webhooks.deliveries(hook["id"], limit=5)
    if deliveries and all(d["status"] != "PENDING" for d in deliveries):
        break
    time.sleep(0.1)
out["resent"] = gw.webhooks.resend(deliveries[0]["id"])["eventId"] == deliveries[0]["eventId"]
out["secret"] = gw.webhooks.rotate_secret(hook["id"], overlap_hours=1)["secret"][:6]
out["stats"] = sorted(k for k in gw.webhooks.stats(hook["id"]) if k in ("delivered", "failed", "pending"))
gw.webhooks.delete(hook["id"])
cashout = gw.cashouts.create({"amountCents": 15000, "pixKey": "52998224725", "pixKeyType": "CPF"})
out["amount"] = cashout["amount"]
for _ in range(300):
    if gw.cashouts.retrieve(cashout["uuid"])["status"] == "PROCESSING":
        break
    time.sleep(0.1)
out["completed"] = gw.sandbox.complete_withdrawal(cashout["uuid"])["status"]
print(json.dumps(out))
`;
    const ran = await runPython(['-c', script, server.url, other.publicKey, other.privateKey, receiver.url]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({
      fees: expect.any(String),
      updated: ['sale.paid'],
      test: true,
      resent: true,
      secret: 'whsec_',
      stats: ['delivered', 'failed', 'pending'],
      amount: '150.00',
      completed: 'COMPLETED',
    });
  }, 60_000);
});

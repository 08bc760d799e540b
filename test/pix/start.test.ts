import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { startBcb } from '../../src/pix/start.js';
import { RECEIVER_KEY, startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let psp: DevPsp;
let server: TestServer;

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
});
afterAll(async () => {
  await server?.close();
  await psp?.close();
});

describe('PSP webhook registration at start', () => {
  it('a refused registration is retried with backoff until it succeeds, each failure logged at warn', async () => {
    const lines: { level: number; msg: string; kind?: string; err?: string; attempt?: number }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    psp.state.webhooks.clear();
    psp.recurring.webhookRec = null;
    psp.recurring.webhookCobr = null;
    psp.failNext('PUT /webhook', { status: 503 }, 2);
    psp.failNext('PUT /webhookcobr', { status: 500 });
    const { platform } = server.runtime;
    // Pix Automático set up: its two webhooks are registered too
    const config = { ...platform.config, bcb: { ...platform.config.bcb!, recurrenceAccountId: 1 } };
    const bcb = (await startBcb(config, platform.db, platform.queue, log))!;
    try {
      expect(psp.state.webhooks.has(RECEIVER_KEY)).toBe(false); // the first attempt failed
      expect(psp.recurring.webhookRec).toBeTruthy();
      // retried after 1 s (refused again), then after 2 s more
      await waitUntil(() => psp.state.webhooks.get(RECEIVER_KEY), 10_000);
      await waitUntil(() => psp.recurring.webhookCobr, 10_000);
      // the PSP keeps a webhook before it answers; the gateway logs it once the answer is read
      const registered = () => lines.filter((l) => l.msg === 'PSP webhook registered');
      await waitUntil(() => registered().length === 3, 10_000);
      expect(psp.state.webhooks.get(RECEIVER_KEY)).toBe(`${server.env.PUBLIC_URL}/api/providers/bcb/webhook`);
      const failures = lines.filter((l) => l.msg === 'PSP webhook registration failed');
      expect(failures.map((l) => [l.level, l.kind, l.attempt])).toEqual([
        [40, 'webhook', 1],
        [40, 'webhookcobr', 1],
        [40, 'webhook', 2],
      ]);
      expect(failures[0]!.err).toMatch(/503/);
      const logged = JSON.stringify(lines);
      expect(logged).not.toContain(platform.config.bcb!.clientSecret);
      expect(registered()).toHaveLength(3);
    } finally {
      bcb.stop();
      await bcb.client.close();
    }
  });

  it('without Pix Automático set up, registers the received-Pix webhook alone', async () => {
    psp.recurring.webhookRec = null;
    psp.recurring.webhookCobr = null;
    const { platform } = server.runtime;
    const config = {
      ...platform.config,
      bcb: { ...platform.config.bcb!, recurrenceAccountId: null, recurringAccount: null },
    };
    const seen = psp.state.log.filter((l) => /^PUT \/webhook(rec|cobr)/.test(l)).length;
    const bcb = (await startBcb(config, platform.db, platform.queue, pino({ level: 'silent' })))!;
    try {
      await waitUntil(() => psp.state.webhooks.get(RECEIVER_KEY), 10_000);
      expect(psp.state.log.filter((l) => /^PUT \/webhook(rec|cobr)/.test(l)).length).toBe(seen);
      expect(psp.recurring.webhookRec).toBeNull();
    } finally {
      bcb.stop();
      await bcb.client.close();
    }
  });

  it('stops retrying once stopped', async () => {
    const log = pino({ level: 'silent' });
    psp.failNext('PUT /webhook', { status: 503 }, 100);
    const { platform } = server.runtime;
    const bcb = (await startBcb(platform.config, platform.db, platform.queue, log))!;
    bcb.stop();
    await bcb.client.close();
    const seen = psp.state.log.filter((l) => l.startsWith('PUT /webhook/')).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(psp.state.log.filter((l) => l.startsWith('PUT /webhook/')).length).toBe(seen);
  });
});

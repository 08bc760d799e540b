import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { type SaleBody, saleInput } from '../sales/fixtures.js';
import { runGateway } from '../support/cli.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { RECEIVER_KEY, startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await psp?.close();
});

const gateway = (...args: string[]) => runGateway(args, server.env);
const statusOf = async (id: number) =>
  (
    await server.runtime.platform.db.query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [id])
  )[0]!.status;

describe('gateway reconcile', () => {
  it('--from/--to --json reconciles the window and prints the report; --discrepancies lists what is kept', async () => {
    const sale = (
      await call<SaleBody>('POST', `${server.url}/api/transactions`, {
        headers: merchant.keys,
        body: saleInput(),
      })
    ).body;
    await psp.pay(sale.externalTransactionId, { times: 0 });
    const stray = await psp.receiveWithoutCharge(RECEIVER_KEY, 250);
    const from = new Date(Date.now() - 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();

    const run = await gateway('reconcile', '--from', from, '--to', to, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      from,
      to,
      received: 2,
      matched: 1,
      creditedNow: 1,
      refundedNow: 0,
      discrepancies: [
        {
          kind: 'unknown_charge',
          e2eid: stray.endToEndId,
          txid: null,
          amount: 250,
          detail: 'a Pix to the key without a txid',
        },
      ],
    });
    expect(await statusOf(sale.id)).toBe('PAGO');

    const text = await gateway('reconcile', '--from', from, '--to', to);
    expect(text.stdout).toContain('2 received, 1 matched');
    expect(text.stdout).toContain('0 credited now');
    expect(text.stdout).toContain(`unknown_charge e2eid=${stray.endToEndId}`);

    const listed = await gateway('reconcile', '--discrepancies', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).discrepancies).toEqual([
      expect.objectContaining({
        kind: 'unknown_charge',
        e2eid: stray.endToEndId,
        amount: 250,
        resolvedAt: null,
        resolution: null,
      }),
    ]);

    // an operator resolves it with a note: it leaves the open list, and keeps the note
    const id = String(JSON.parse(listed.stdout).discrepancies[0].id);
    expect((await gateway('reconcile', '--resolve', id)).code).toBe(2);
    const resolved = await gateway(
      'reconcile',
      '--resolve',
      id,
      '--note',
      'Pix devolvido pelo internet banking',
    );
    expect(resolved.code, resolved.stderr).toBe(0);
    expect((await gateway('reconcile', '--resolve', id, '--note', 'de novo')).code).toBe(1);
    const open = await gateway('reconcile', '--discrepancies', '--json');
    expect(JSON.parse(open.stdout).discrepancies).toEqual([]);
    const all = await gateway('reconcile', '--discrepancies', '--all', '--json');
    expect(JSON.parse(all.stdout).discrepancies[0]).toMatchObject({
      resolvedAt: expect.any(String),
      resolution: 'operator: Pix devolvido pelo internet banking',
    });
    // in text, each names the id --resolve takes, and a resolved one says so
    const allText = await gateway('reconcile', '--discrepancies', '--all');
    expect(allText.stdout).toMatch(
      new RegExp(
        `^#${id} \\S+ resolved \\S+ \\(operator: Pix devolvido pelo internet banking\\) unknown_charge `,
        'm',
      ),
    );
  }, 180_000); // ten runs of the command, each a process of its own: a loaded CI machine took over 60 s

  it('bad windows are usage errors (exit 2)', async () => {
    for (const args of [
      ['reconcile'],
      ['reconcile', '--from', 'yesterday', '--to', '2026-11-25'],
      ['reconcile', '--from', '2026-11-25', '--to', '2026-11-24'],
      ['reconcile', '--from', '2026-01-01', '--to', '2026-03-01'],
      ['reconcile', '--discrepancies', '--from', '2026-11-24'],
      // days and hours that do not exist: not a RangeError of Date's (exit 1, "Invalid time value")
      ['reconcile', '--from', '2026-13-01', '--to', '2026-13-02'],
      ['reconcile', '--from', '2026-11-29T25:00', '--to', '2026-11-30'],
      ['reconcile', '--from', '2026-11-29T10:00+25:00', '--to', '2026-11-30'],
      // the PSP has received nothing yet there
      ['reconcile', '--from', '2099-01-01', '--to', '2099-01-02'],
    ]) {
      const r = await gateway(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

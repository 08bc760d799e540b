/**
 * The SDK as a merchant's project gets it: from `import` and from `require()` on Node 20, and the quickstart's
 * TypeScript compiling under `tsc --strict` as the page tells the reader to set it up ("type": "module").
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { startServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
let server: TestServer;
let merchant: TestMerchant;
let dir: string;

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  // inside the repository, so that `@payment-gateway/sdk` resolves as a dependency of a project would
  mkdirSync(path.join(ROOT, 'node_modules', '.cache'), { recursive: true });
  dir = mkdtempSync(path.join(ROOT, 'node_modules', '.cache', 'sdk-project-'));
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

const CLIENT = (load: string) => `${load}
const gateway = new Gateway({ baseUrl: process.env.GATEWAY_URL, publicKey: process.env.PK, privateKey: process.env.SK });
gateway.balance.retrieve().then((b) => console.log(JSON.stringify(b)));
`;

describe('the SDK package', () => {
  it('works from require() and from import', async () => {
    writeFileSync(
      path.join(dir, 'client.cjs'),
      CLIENT("const { Gateway } = require('@payment-gateway/sdk');"),
    );
    writeFileSync(path.join(dir, 'client.mjs'), CLIENT("import { Gateway } from '@payment-gateway/sdk';"));
    const env = { ...process.env, GATEWAY_URL: server.url, PK: merchant.publicKey, SK: merchant.privateKey };
    for (const file of ['client.cjs', 'client.mjs']) {
      const { stdout } = await run(process.execPath, [path.join(dir, file)], { env });
      expect(JSON.parse(stdout), file).toEqual({ available: 0, blocked: 0, total: 0, receivable: 0 });
    }
  });

  it('compiles the quickstart’s TypeScript under tsc --strict, its webhook events narrowed by type', async () => {
    const project = path.join(dir, 'quickstart');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['*.ts'],
      }),
    );
    const page = readFileSync(path.join(ROOT, 'docs', 'quickstart.md'), 'utf8');
    const blocks = [...page.matchAll(/^```ts( background)?\n([\s\S]*?)^```$/gm)].map((m) => m[2]!);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const [i, code] of blocks.entries()) writeFileSync(path.join(project, `block${i}.ts`), code);
    // a payload used without narrowing its event does not compile
    writeFileSync(
      path.join(project, 'unnarrowed.ts'),
      `import { verifyWebhook } from '@payment-gateway/sdk';
const event = verifyWebhook({ body: '', headers: {}, secret: 'whsec_x' });
console.log(event.payload.status);
`,
    );
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    const failed = await run(tsc, ['-p', project]).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(failed.split('\n').filter((l) => /error TS/.test(l))).toEqual([
      expect.stringMatching(/unnarrowed\.ts\(3,13\): error TS18046: .event\.payload. is of type .unknown./),
    ]);
  });
});

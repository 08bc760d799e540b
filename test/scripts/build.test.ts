import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const stamp = path.join(root, 'dist', '.inputs-sha256');

// the global setup has built dist/ from these sources: `npm start` must not build it again
// (asked with --check: a real build would empty dist/ under the tests still running)
it('finds dist/ built from the same sources: nothing to build again', () => {
  const check = () =>
    spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), '--check'], { cwd: root }).status;
  expect(readFileSync(stamp, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
  expect(check()).toBe(0);
  expect(statSync(path.join(root, 'dist', 'cli', 'main.js')).isFile()).toBe(true);
  // what `npm start` and bin/gateway.js run: the same modules bundled
  expect(statSync(path.join(root, 'dist', 'bundle', 'main.mjs')).isFile()).toBe(true);
});

import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const stamp = path.join(root, 'dist', '.inputs-sha256');

// the global setup has built dist/ from these sources: `npm start` must not build it again
it('leaves dist/ alone when it was built from the same sources', () => {
  const before = statSync(stamp).mtimeMs;
  const hash = readFileSync(stamp, 'utf8');
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root });
  expect(statSync(stamp).mtimeMs).toBe(before);
  expect(readFileSync(stamp, 'utf8')).toBe(hash);
  expect(statSync(path.join(root, 'dist', 'cli', 'main.js')).isFile()).toBe(true);
});

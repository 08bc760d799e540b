// What scripts/build.mjs builds from, and whether dist/ was built from exactly that: a hash of every input, kept
// beside the output (dist/.inputs-sha256). Shared by the build and by scripts/start.mjs (`npm start`).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');
export const STAMP = path.join(root, 'dist', '.inputs-sha256');
const INPUTS = [
  'src',
  'panel',
  'checkout-page',
  'scripts/build.mjs',
  'scripts/inputs.mjs',
  'sdk/src',
  'sdk/package.json',
  'sdk/tsconfig.json',
  'sdk/tsconfig.cjs.json',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];

function files(entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full, { withFileTypes: true, recursive: true })
    .filter(
      (d) => d.isFile() && !path.join(d.parentPath, d.name).includes(`${path.sep}node_modules${path.sep}`),
    )
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)));
}

/** The hash of every input's path and content. */
export function inputsDigest() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

/** Whether dist/ was built from these very inputs. */
export function builtFrom(digest) {
  return existsSync(STAMP) && readFileSync(STAMP, 'utf8') === digest;
}

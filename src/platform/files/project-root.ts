import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The gateway's own directory (package.json, migrations/, docs/, dist/), found from wherever this module runs:
 * src/platform/files under the tests, dist/platform/files compiled, or the bundle in dist/bundle that `npm start`
 * runs (scripts/build.mjs), where every module's import.meta.dirname is the bundle's.
 */
export const PROJECT_ROOT = findRoot(import.meta.dirname);

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'migrations'))) return dir;
    if (path.dirname(dir) === dir)
      throw new Error(`no package.json beside a migrations/ directory above ${from}`);
  }
}

// Type-checks the server and tests, the panel, the checkout page and the SDK: each its own TypeScript project,
// two at a time (the machines CI runs on have two cores; one after another took 78 s, two at a time 59 s).
// Each project's errors are printed together once it ends; any error fails the whole.
import { execFile } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
const PROJECTS = [['--noEmit'], ['-p', 'panel'], ['-p', 'checkout-page'], ['-p', 'sdk', '--noEmit']];
const AT_ONCE = 2;

let failed = false;
const queue = [...PROJECTS];
async function lane() {
  for (let args = queue.shift(); args; args = queue.shift()) {
    const { code, output } = await new Promise((resolve) => {
      execFile(tsc, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
        // a tsc that could not run (or said too much) leaves its reason in err.message, not in its output
        resolve({ code: err ? 1 : 0, output: stdout + stderr || (err ? `${err.message}\n` : '') }),
      );
    });
    if (output.trim()) process.stdout.write(`tsc ${args.join(' ')}:\n${output}`);
    if (code !== 0) failed = true;
  }
}
await Promise.all(Array.from({ length: AT_ONCE }, lane));
process.exit(failed ? 1 : 0);

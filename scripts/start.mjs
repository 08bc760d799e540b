// `npm start`: builds dist/ when its inputs changed (scripts/build.mjs), then runs `gateway serve` from the bundle
// in this same process (arguments after `npm start --` passed on), rather than a shell starting a second Node
// process for the check: a restart with nothing changed pays for one Node start-up, not two.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { builtFrom, inputsDigest, root } from './inputs.mjs';

if (!builtFrom(inputsDigest())) {
  try {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
      cwd: root,
      stdio: 'inherit',
    });
  } catch (err) {
    // the build has said what is wrong
    process.exit(typeof err.status === 'number' ? err.status : 1);
  }
}
process.argv.splice(2, 0, 'serve');
await import('../dist/bundle/main.mjs');

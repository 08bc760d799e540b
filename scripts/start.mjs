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
// npm stopped by its pid alone (a supervisor's or a user's `kill <npm's pid>`) forwards the signal to its `sh -c`,
// which dies without passing it on: the gateway would go on as an orphan holding its port and its database. When
// whatever ran it goes away, it stops as if signalled; once a signal has reached it, its own shutdown decides.
if (process.env.npm_lifecycle_event === 'start') {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 1000).unref();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => clearInterval(watch));
}
process.argv.splice(2, 0, 'serve');
await import('../dist/bundle/main.mjs');

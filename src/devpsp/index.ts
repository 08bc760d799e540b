// The dev-psp's front door: `gateway dev-psp`.
export { runDevPsp } from './cli.js';

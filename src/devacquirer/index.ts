// The dev-acquirer's front door: `gateway dev-acquirer`.
export { runDevAcquirer } from './cli.js';
export { DevAcquirer } from './server.js';

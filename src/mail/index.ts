// The mail module's front door: what the other modules, app.ts and the CLI use of it.
export { renderMail } from './layout.js';
export { type MailOutbox, queueMail } from './outbox.js';
export { startMailWorker } from './worker.js';

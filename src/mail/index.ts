// The mail module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { renderMail } from './layout.js';
export { type MailOutbox, publishedSealingKey, publishSealingKey, queueMail } from './outbox.js';
export { startMailWorker } from './worker.js';

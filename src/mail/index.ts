// The mail module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { renderMail } from './layout.js';
export {
  type MailGateway,
  type MailOutbox,
  publishedMailGateway,
  publishMailGateway,
  queueMail,
} from './outbox.js';
export { startMailWorker } from './worker.js';

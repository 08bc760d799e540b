// The postbacks module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { type OutboundRequest, postbackRequest } from './postback.js';

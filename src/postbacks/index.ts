// The postbacks module's front door: what the other modules, app.ts and the CLI use of it.
export { type OutboundRequest, postbackRequest } from './postback.js';

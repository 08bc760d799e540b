// The events module's front door: what the other modules, app.ts and the CLI use of it.
export { EventFeed } from './feed.js';
export { eventRoutes } from './routes.js';
export { Event, EventPage } from './schemas.js';
export { openStreams } from './stream.js';

// The events module's front door: what the other modules and app.ts use of it (the CLI enters by cli.ts).
export { EventFeed } from './feed.js';
export { eventRoutes } from './routes.js';
export { Event, EventPage } from './schemas.js';
export { openStreams, startEventStream } from './stream.js';

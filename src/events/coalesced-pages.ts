import { coalescedReader } from '../platform/concurrency/coalesced-reads.js';
import type { Queryable } from '../platform/db/db.js';
import { type EventFilter, type EventRow, listEvents } from '../webhooks/index.js';

export type PageRow = EventRow & { at: string };

/**
 * Pages of events as listEvents reads them, the identical asks that arrive together (same account, same
 * filters: integrators polling for what is new) answered by one query each (coalescedReader): no result is
 * kept, every read is a query started after its request arrived.
 */
export function eventPages(db: Queryable): (accountId: number, filter: EventFilter) => Promise<PageRow[]> {
  const read = coalescedReader<string, PageRow[]>(async (keys) => {
    const pages = new Map<string, PageRow[]>();
    await Promise.all(
      [...new Set(keys)].map(async (key) => {
        const { accountId, filter } = JSON.parse(key) as { accountId: number; filter: EventFilter };
        pages.set(key, await listEvents(db, accountId, filter));
      }),
    );
    return pages;
  });
  return async (accountId, filter) => (await read(JSON.stringify({ accountId, filter }))) ?? [];
}

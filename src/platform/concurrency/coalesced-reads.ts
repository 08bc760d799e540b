import DataLoader from 'dataloader';

/** The most keys one coalesced query carries (its `= ANY($1)` array). */
const MAX_KEYS = 256;

/**
 * Point reads of one kind that arrive together are answered by one query: every key asked for during a turn
 * of the event loop (the requests read from the sockets that were ready) goes into one `= ANY($1)` query,
 * sent once that turn's reads are all in (setImmediate). Under load this turns one database round trip per
 * request into one per turn, which is most of a point read's cost here (the socket writes to PostgreSQL; see
 * docs/performance.md). Nothing is cached: every read is a query started after its request arrived, so it
 * sees every commit made before then, as a read of its own would.
 *
 * `load` answers the keys it can; a key it leaves out resolves to undefined.
 */
export function coalescedReader<K, V>(
  load: (keys: readonly K[]) => Promise<Map<K, V>>,
): (key: K) => Promise<V | undefined> {
  const loader = new DataLoader<K, V | undefined>(
    async (keys) => {
      const found = await load(keys);
      return keys.map((k) => found.get(k));
    },
    { cache: false, maxBatchSize: MAX_KEYS, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return (key) => loader.load(key);
}

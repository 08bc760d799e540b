import { useState } from 'preact/hooks';

/** A page of a list route: its rows and the cursor of the next page (null: the last). */
export interface ListPage<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * A paged list's state: its rows, the next page's cursor, whether a first page came, and the last error. `load`
 * shows a page asked for (`after`: the cursor it was asked after, appended; none: the first page, replacing the
 * rows). A refused first page (a period ending before it starts) leaves none of the rows the filter before it
 * found on screen, and the error says why; a refused later page keeps the rows shown.
 */
export function usePagedList<T>() {
  const [rows, setRows] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const load = (page: Promise<ListPage<T>>, after?: string) =>
    page.then(
      (p) => {
        setRows((prev) => (after ? [...prev, ...p.data] : p.data));
        setCursor(p.nextCursor);
        setLoaded(true);
        setError(null);
      },
      (err: unknown) => {
        if (!after) {
          setRows([]);
          setCursor(null);
        }
        setError(err);
      },
    );
  return { rows, setRows, cursor, loaded, error, setError, load };
}

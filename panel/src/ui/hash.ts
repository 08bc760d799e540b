import { useEffect, useState } from 'preact/hooks';

/** The page's hash (`#/…`), kept current: both the panel and the console name their pages by it. */
export function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

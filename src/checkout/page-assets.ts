import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** One of the page's built files, held in memory as it is and gzipped. */
export interface PageAsset {
  type: string;
  raw: Buffer;
  gzip: Buffer;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * The page's hashed assets, read once at start: a phone's first visit costs the gateway a buffer write per file,
 * not a file read (the files are a few tens of KB, gzipped once here for slow networks).
 */
export function loadPageAssets(dir: string): Map<string, PageAsset> {
  const assets = new Map<string, PageAsset>();
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const raw = readFileSync(path.join(dir, name));
    assets.set(name, { type, raw, gzip: gzipSync(raw, { level: 9 }) });
  }
  return assets;
}

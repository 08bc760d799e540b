import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

// the global setup builds dist/ (server and panel) before any test runs
const ASSETS = path.resolve(import.meta.dirname, '../../../dist/panel-site/assets');
const BUDGET_GZIP_BYTES = 150 * 1024;

describe('the panel build', () => {
  it('ships its JavaScript within the 150 KB gzipped budget (decisions.md, Merchant panel)', () => {
    const scripts = readdirSync(ASSETS).filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const gzipped = scripts.reduce((n, f) => n + gzipSync(readFileSync(path.join(ASSETS, f))).length, 0);
    console.log(`panel JS: ${scripts.length} file(s), ${(gzipped / 1024).toFixed(1)} KB gzipped`);
    expect(gzipped).toBeLessThan(BUDGET_GZIP_BYTES);
  });
});

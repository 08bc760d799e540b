/**
 * One admission for every sale: the statement that stores a sale is reachable only through the sales module's
 * createSale (src/sales/create.ts), which checks the account's standing before anything else. Any module that
 * inserts into `sales` itself, or calls insertSale from elsewhere, fails here, whatever door it serves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(file);
    else if (file.endsWith('.ts')) yield file;
  }
}

it('a sale is stored by createSale alone: INSERT INTO sales in sales/data.ts, insertSale called from sales/create.ts', () => {
  const inserts: string[] = [];
  const callers: string[] = [];
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    const name = path.relative(SRC, file);
    if (/insert\s+into\s+sales\b(?!_)/i.test(text)) inserts.push(name);
    if (/\binsertSale\s*\(/.test(text) && name !== 'sales/data.ts') callers.push(name);
  }
  expect(inserts).toEqual(['sales/data.ts']);
  expect(callers).toEqual(['sales/create.ts']);
  const data = readFileSync(path.join(SRC, 'sales/data.ts'), 'utf8');
  // the one insert lives in insertSale, which the module's front door does not export
  expect(readFileSync(path.join(SRC, 'sales/index.ts'), 'utf8')).not.toMatch(/\binsertSale\b/);
  expect(data.match(/insert\s+into\s+sales\b(?!_)/gi)).toHaveLength(1);
});

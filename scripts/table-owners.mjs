// One owner per table, checked by `npm run lint`: the modules table of docs/architecture.md names the tables
// each module owns; a table's name in SQL anywhere else under src/ (after FROM, JOIN, INTO, UPDATE, TABLE,
// DELETE FROM or in a lock) is a module reaching past the owner's functions. Prints each and exits 1.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const doc = readFileSync('docs/architecture.md', 'utf8');
const owners = new Map();
for (const line of doc.split('\n')) {
  const cells = line.split('|').map((c) => c.trim());
  if (cells.length < 4) continue;
  const module = /^`([a-z-]+)\/`/.exec(cells[1])?.[1];
  if (!module) continue;
  for (const [, table] of cells[2].matchAll(/`([a-z_]+)`/g)) owners.set(table, module);
}

// the tables the migrations leave, in their order: one a later migration drops is gone
const tables = new Set();
for (const file of readdirSync('migrations').sort()) {
  const sql = readFileSync(join('migrations', file), 'utf8');
  for (const [, made, t] of sql.matchAll(/(create|drop) table (?:if (?:not )?exists )?([a-z_]+)/gi)) {
    if (made.toLowerCase() === 'create') tables.add(t.toLowerCase());
    else tables.delete(t.toLowerCase());
  }
}

const problems = [];
for (const t of tables) if (!owners.has(t)) problems.push(`table ${t} has no owner in docs/architecture.md`);

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

const sqlName = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE|LOCK)\s+([a-z_]+)\b/g;
let named = 0;
for (const path of files('src')) {
  const module = path.split('/')[1];
  const text = readFileSync(path, 'utf8');
  for (const [, table] of text.matchAll(sqlName)) {
    const owner = owners.get(table);
    if (!owner || !tables.has(table)) continue;
    named++;
    if (owner !== module) problems.push(`${path} names ${table}, a table of ${owner}/`);
  }
}

if (problems.length > 0) {
  for (const p of [...new Set(problems)]) console.error(p);
  process.exit(1);
}
console.log(`table owners: ${tables.size} tables, ${named} uses in SQL, each in its owner's module`);

// Lint: every file a comment in src/, panel/src, sdk/src, scripts/ or bench/ names (a module, a document under
// docs, a migration, …) exists in the repository, by its path or, for a bare name, somewhere under it. Files
// the project writes and ignores (.gitignore: bench results) count as existing. Nor may a comment point to parts of
// documents outside the repository.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'data', 'coverage']);
const all = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else all.push(path.relative(root, full));
  }
};
walk(root);
const ignored = readFileSync(path.join(root, '.gitignore'), 'utf8')
  .split('\n')
  .filter((line) => line && !line.includes('*') && !line.endsWith('/'));
const names = new Set([...all, ...ignored].map((f) => path.basename(f)));
const paths = new Set([...all, ...ignored]);

const COMMENT = /\/\/[^\n]*|\/\*[\s\S]*?\*\//g;
const FILE = /(?<![\w@/.-])([\w.-]+\/)*[\w-]+(\.[\w-]+)*\.(ts|tsx|mjs|md|sql|json|sh)\b/g;
const problems = [];
for (const file of all.filter((f) => /^(src|panel\/src|sdk\/src|scripts|bench)\/.*\.(ts|tsx|mjs)$/.test(f))) {
  const text = readFileSync(path.join(root, file), 'utf8');
  for (const comment of text.match(COMMENT) ?? []) {
    for (const m of comment.matchAll(FILE)) {
      const ref = m[0];
      if (/^(https?|www)\b/.test(ref) || ref.includes('*')) continue;
      const found = ref.includes('/')
        ? [...paths].some((p) => p === ref || p.endsWith(`/${ref}`))
        : names.has(ref);
      if (!found) problems.push(`${file}: a comment names ${ref}, which is not in the repository`);
    }
    // parts and sections of documents that live outside the repository
    const outside = /\bPart [1-9]\b|\bthe spec\b|\bspec's\b|\(spec\b/.exec(comment);
    if (outside) problems.push(`${file}: a comment points outside the repository ("${outside[0]}")`);
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`comment references: every file named in a comment exists`);

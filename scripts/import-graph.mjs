// The import graph's rules, checked by `npm run lint`: no circle of imports; shared plumbing
// (src/platform) imports no domain; the payment standards (the API Pix client, BR Code, QR, the boleto's barcode) import only the platform; no two
// domains import each other; a module is entered only by its front door (its index.ts), whoever imports it;
// inside a domain only the HTTP side (routes, schemas, hooks, its http.ts) imports platform/http: the rest
// speaks in AppError codes (platform/errors) and leaves statuses and bodies to the routes.
// Prints what breaks a rule and exits 1.
import madge from 'madge';

const graph = (await madge('src', { fileExtensions: ['ts'], tsConfig: 'tsconfig.json' })).obj();
const problems = [];

const HTTP_SIDE = /(routes|schemas|\.hook|\/http)\.ts$/;
const room = (file) => (file.includes('/') ? file.split('/')[0] : '(root)');
const edges = new Map();
for (const [from, deps] of Object.entries(graph)) {
  for (const to of deps) {
    const a = room(from);
    const b = room(to);
    if (a === 'platform' && b !== 'platform') problems.push(`platform imports a domain: ${from} -> ${to}`);
    if (a === 'payment-standards' && b !== a && b !== 'platform')
      problems.push(`payment-standards imports a domain: ${from} -> ${to}`);
    if (a !== b) edges.set(`${a} -> ${b}`, `${from} -> ${to}`);
    if (a !== 'platform' && a !== '(root)' && to.startsWith('platform/http/') && !HTTP_SIDE.test(from))
      problems.push(`${from} imports ${to}: only routes, schemas, hooks and http.ts speak HTTP`);
    // the CLI enters a domain by its commands (cli.ts), so a command does not load the whole module
    const door = to === `${b}/index.ts` || (a === 'cli' && to === `${b}/cli.ts`);
    if (a !== b && b !== 'platform' && b !== '(root)' && !door)
      problems.push(`${from} imports ${to}, inside ${b}/: import its index.ts`);
  }
}
for (const [edge, example] of edges) {
  const [a, b] = edge.split(' -> ');
  if (a < b && edges.has(`${b} -> ${a}`)) {
    problems.push(`${a} and ${b} import each other: ${example}; ${edges.get(`${b} -> ${a}`)}`);
  }
}

const seen = new Set();
const stack = [];
const onStack = new Set();
function visit(file) {
  if (onStack.has(file)) {
    problems.push(`import circle: ${[...stack.slice(stack.indexOf(file)), file].join(' -> ')}`);
    return;
  }
  if (seen.has(file)) return;
  seen.add(file);
  stack.push(file);
  onStack.add(file);
  for (const dep of graph[file] ?? []) visit(dep);
  stack.pop();
  onStack.delete(file);
}
for (const file of Object.keys(graph)) visit(file);

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(
  `import graph: ${Object.keys(graph).length} files, no circle, no import back and forth between domains, every module entered by its index.ts, HTTP spoken only by its side`,
);

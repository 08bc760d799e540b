/**
 * The measured integration: each example (the shops, the marketplaces) marks the lines that talk to the gateway (create a charge, receive
 * its verified webhook, refund part of it, the client and the imports) between `gateway:begin` and
 * `gateway:end` lines; this test counts the non-blank, non-comment lines between them, prints the counts and
 * fails past 30. So that a count cannot be made small by leaving plumbing outside the markers, every line
 * outside them that names the SDK or uses its client fails it too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LIMIT = 30;

const EXAMPLES = [
  { file: 'examples/shop/server.ts', comment: '//' },
  { file: 'examples/shop-python/shop.py', comment: '#' },
  { file: 'examples/marketplace/main.ts', comment: '//' },
  { file: 'examples/marketplace-python/marketplace.py', comment: '#' },
];

/** What uses the gateway: the SDK's names, the client, the raw routes and signature headers. */
const GATEWAY_USE =
  /@payment-gateway\/sdk|gateway_sdk|\bGateway\b|\bgateway\.\w|webhookHandler|handle_webhook|verify_?[wW]ebhook|EventIdDeduplicator|isSaleEvent|\/api\/|x-service-|webhook-signature/;

interface Plumbing {
  /** Non-blank, non-comment lines between the markers. */
  counted: string[];
  /** Code lines outside the markers that use the gateway. */
  outside: string[];
  regions: number;
}

function measure(source: string, comment: string): Plumbing {
  const begin = `${comment} gateway:begin`;
  const end = `${comment} gateway:end`;
  const counted: string[] = [];
  const outside: string[] = [];
  let inside = false;
  let regions = 0;
  let docstring = false;
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (line === begin || line === end) {
      if ((line === begin) === inside)
        throw new Error(`"${line}" where ${inside ? 'a region is open' : 'none is'}`);
      inside = line === begin;
      if (inside) regions++;
      continue;
    }
    // comments: whole-line //, /* … */ and * lines; Python # lines and docstrings (""" … """)
    const quotes = (line.match(/"""/g) ?? []).length;
    const inDocstring = docstring || quotes > 0;
    if (quotes % 2 === 1) docstring = !docstring;
    const isComment =
      line.startsWith(comment) ||
      line.startsWith('/*') ||
      line.startsWith('*') ||
      (comment === '#' && inDocstring);
    if (line === '' || isComment) continue;
    if (inside) counted.push(line);
    else if (GATEWAY_USE.test(line.replace(/(\/\/|#) .*$/, ''))) outside.push(line);
  }
  if (inside) throw new Error('a gateway:begin without its gateway:end');
  return { counted, outside, regions };
}

describe('the example shops: lines of gateway plumbing', () => {
  it.each(EXAMPLES)(`$file: at most ${LIMIT}, all of it between the markers`, ({ file, comment }) => {
    const plumbing = measure(readFileSync(path.join(ROOT, file), 'utf8'), comment);
    console.log(
      `${file}: ${plumbing.counted.length} lines of gateway plumbing in ${plumbing.regions} regions`,
    );
    expect(plumbing.regions).toBeGreaterThan(0);
    expect(plumbing.outside, 'lines that use the gateway outside the markers').toEqual([]);
    expect(plumbing.counted.length, plumbing.counted.join('\n')).toBeLessThanOrEqual(LIMIT);
  });

  it('counts what it should: code lines between markers, not comments, blank lines or docstrings', () => {
    const ts = measure(
      [
        "import { Gateway } from '@payment-gateway/sdk';",
        '// gateway:begin',
        '// a comment',
        '',
        'const gateway = Gateway.fromEnv();',
        '/** a doc comment',
        ' * on two lines */',
        "await gateway.transactions.refund('x'); // trailing",
        '// gateway:end',
        "console.log('shop');",
      ].join('\n'),
      '//',
    );
    expect(ts).toEqual({
      counted: ['const gateway = Gateway.fromEnv();', "await gateway.transactions.refund('x'); // trailing"],
      outside: ["import { Gateway } from '@payment-gateway/sdk';"],
      regions: 1,
    });
    const py = measure(
      [
        '"""A shop.',
        '',
        'gateway.transactions.create is here, in the docstring',
        '"""',
        '# gateway:begin',
        'def f():',
        '    """Doc."""',
        '    return gw.balance.retrieve()',
        '# gateway:end',
        'gateway.sandbox.pay(x)',
      ].join('\n'),
      '#',
    );
    expect(py).toEqual({
      counted: ['def f():', 'return gw.balance.retrieve()'],
      outside: ['gateway.sandbox.pay(x)'],
      regions: 1,
    });
    expect(() => measure('// gateway:begin\nx\n', '//')).toThrow(/without its gateway:end/);
    expect(() => measure('// gateway:end\n', '//')).toThrow(/where none is/);
  });
});

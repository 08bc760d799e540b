/**
 * Realistic example values for a JSON schema that declares none, chosen by each field's format and name
 * (amounts in cents, uuids, PIX keys, São Paulo dates), so that the reference page never shows generated
 * filler such as "string". A schema's own `examples` always win.
 */
type Schema = Record<string, unknown>;

const BY_FORMAT: Record<string, unknown> = {
  uuid: '0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41',
  'date-time': '2026-11-25T13:45:12.345Z',
  date: '2026-11-25',
  uri: 'https://loja.example.com/webhooks/gateway',
  email: 'maria@example.com',
};

/** Field names (lower case, exact or by their ending) and what such a field holds. */
const BY_NAME: [RegExp, unknown][] = [
  [/^(email|customeremail)$/, 'maria@example.com'],
  [/^(customername|name|label)$/, 'Maria Silva'],
  [/document$/, '52998224725'],
  [/phone$/, '5511987654321'],
  [/^pixkey$/, '52998224725'],
  [/^pixkeytype$/, 'CPF'],
  [/url$/, 'https://loja.example.com/webhooks/gateway'],
  [/^(ip|lastusedip)$/, '203.0.113.7'],
  [/^(publickey)$/, 'pk_Xq3LrBKY8O2fDenVpRg0cYOymw'],
  [/^(privatekey)$/, 'sk_5kJ2mN8pQ4rT7vW0yZ3bC6eF9h'],
  [/secret$/, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  [/^csrftoken$/, 'kP2mW9qX4vT7yB1nR6sD3fG8'],
  [/^(code|error|errortype)$/, 'VALIDATION_ERROR'],
  [/^message$/, 'Invalid body/amount: must be number'],
  [/^title$/, 'Camiseta'],
  [/^(events)$/, ['sale.paid', 'withdrawal.completed']],
  [/^(event|eventtype|type)$/, 'sale.paid'],
  [/(cursor)$/, null],
  [/^(action)$/, 'withdrawal.created'],
  [/^(target)$/, 'withdrawal:7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'],
  [/^(useragent)$/, 'Mozilla/5.0 (X11; Linux x86_64)'],
];

const CENTS = /(amount|fee|price|total|available|blocked|balance|reserve|cents)$/;

export function exampleOf(schema: unknown, resolve: (ref: string) => unknown, name = '', depth = 0): unknown {
  if (depth > 8 || schema === null || typeof schema !== 'object') return null;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') return exampleOf(resolve(s.$ref), resolve, name, depth + 1);
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('example' in s) return s.example;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const union of ['anyOf', 'oneOf'] as const) {
    const members = s[union];
    if (Array.isArray(members)) {
      const real = members.find((m) => (m as Schema)?.type !== 'null') ?? members[0];
      return exampleOf(real, resolve, name, depth + 1);
    }
  }
  const field = name.toLowerCase();
  const named = BY_NAME.find(([pattern]) => pattern.test(field));
  switch (s.type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, exampleOf(value, resolve, key, depth + 1)]),
      );
    }
    case 'array':
      return named && Array.isArray(named[1]) ? named[1] : [exampleOf(s.items, resolve, name, depth + 1)];
    case 'integer':
      if (CENTS.test(field)) return 15000;
      return field.endsWith('count') || field === 'quantity' ? 2 : 42;
    case 'number':
      return CENTS.test(field) ? 150 : 1.5;
    case 'boolean':
      return true;
    case 'string': {
      if (typeof s.format === 'string' && s.format in BY_FORMAT) return BY_FORMAT[s.format];
      if (named) return named[1];
      if (typeof s.pattern === 'string' && s.pattern.includes('\\.\\d{2}')) return '150.00';
      if (CENTS.test(field)) return '150.00';
      return 'pedido-1001';
    }
    default:
      // a field the route validates itself (no type declared): its name still says what it holds
      return named ? named[1] : null;
  }
}

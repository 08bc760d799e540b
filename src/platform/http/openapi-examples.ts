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
  [/password$/, 'Correta-Cavalo-Bateria-42'],
  [/^(totpcode|totp)$/, '123456'],
  [/^(expiresat|since|until)$/, '2026-12-25T00:00:00.000Z'],
  [/^(duedate|datainicial|date)$/, '2026-12-10'],
  [/token$/, 'qX4vT7yB1nR6sD3fG8kP2mW9Zb5Lc0Ue'],
  [/^disabledreason$/, 'The receiver answered 410 Gone'],
  [/^(eventid|uuid)$/, '019a7c3e-8f2b-7c1d-9e4a-3b5c6d7e8f90'],
  [/^orderid$/, 'pedido-1001'],
  [/^paymentmethod$/, 'PIX'],
  [/^status$/, 'PAGO'],
  [/^externaltransactionid$/, 'psp-7f3a9c2e'],
  [/^idrec$/, 'RR1234567820261201abcdefghijk'],
  [/^contrato$/, 'CT-2026-0001'],
  [/^barcode$/, '00193373700000001000500940144816060680935031'],
  [/^digitableline$/, '00190500954014481606906809350314337370000000100'],
  [/^nossonumero$/, '00000000123'],
  [
    /^pixcopypaste$/,
    '00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/cobv/9d36b84f5204000053039865802BR5913Loja Exemplo6009SAO PAULO62070503***6304E2CA',
  ],
  [/^pixqrcode$/, 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4='],
  [/^brand$/, 'visa'],
  [/^lastfour$/, '4242'],
  [/^kind$/, 'sale.paid'],
  [/^reftype$/, 'sale'],
  [/^description$/, 'Venda pedido-1001 paga'],
];

/** Values tried, in order, for a string whose pattern the value its name suggests does not match. */
const PATTERN_CANDIDATES = ['2026-12-10', '123456', '4242', '52998224725', '150.00', 'AB12', 'pedido-1001'];

const fits = (s: Schema, value: unknown): boolean => {
  if (typeof value !== 'string') return true;
  if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) return false;
  if (typeof s.minLength === 'number' && value.length < s.minLength) return false;
  if (typeof s.maxLength === 'number' && value.length > s.maxLength) return false;
  return true;
};

/** A number within the schema's bounds. */
const within = (s: Schema, value: number): number => {
  const min = typeof s.minimum === 'number' ? s.minimum : -Infinity;
  const max = typeof s.maximum === 'number' ? s.maximum : Infinity;
  return Math.min(max, Math.max(min, value));
};

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
      if (CENTS.test(field)) return within(s, 15000);
      return within(s, field.endsWith('count') || field === 'quantity' ? 2 : 42);
    case 'number':
      return within(s, CENTS.test(field) ? 150 : 1.5);
    case 'boolean':
      return true;
    case 'string': {
      const suggested =
        typeof s.format === 'string' && s.format in BY_FORMAT
          ? BY_FORMAT[s.format]
          : named
            ? named[1]
            : CENTS.test(field)
              ? '150.00'
              : 'pedido-1001';
      if (fits(s, suggested)) return suggested;
      return PATTERN_CANDIDATES.find((value) => fits(s, value)) ?? suggested;
    }
    default:
      // a field the route validates itself (no type declared): its name still says what it holds
      return named ? named[1] : null;
  }
}

import { ApiError } from './api-error';
import { money } from './format';

/**
 * The field a VALIDATION_ERROR is about, read from the API's own message (docs/decisions.md, "Panel forms and
 * the API's field errors"): the server starts its messages with the field ("document must be a valid CPF or
 * CNPJ", "customer.document is not a valid CPF"), and a request refused by its schema names the field's path
 * ("Invalid body/address/zipCode: must match pattern …"). Null when the answer names no field.
 */
export function invalidField(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  // a limit or the balance refusing the amount is the amount field's (a withdrawal's, a refund's)
  if (AMOUNT_LIMITS.has(error.code)) return 'amount';
  if (error.code !== 'VALIDATION_ERROR') return null;
  return fieldOfMessage(error.message)?.path ?? null;
}

const AMOUNT_LIMITS = new Set(['MINIMUM_VALUE', 'MAXIMUM_VALUE', 'INSUFFICIENT_BALANCE']);

/** A validation message as its field's dotted path and what is wrong with it. */
export function fieldOfMessage(message: string): { path: string; reason: string } | null {
  const schema = /^Invalid (?:body|querystring|params)(\/[^:\s]*)?: (.*)$/s.exec(message);
  if (schema) {
    const base = (schema[1] ?? '').split('/').filter(Boolean);
    const reason = schema[2]!;
    // a missing property is reported on its parent object: name the property itself
    const required = /must have required property '([^']+)'/.exec(reason);
    if (required) return { path: [...base, required[1]!].join('.'), reason };
    return base.length > 0 ? { path: base.join('.'), reason } : null;
  }
  // the account's e-mail check quotes the value first: "\"x\" is not an email address"
  if (/ is not an email address$/.test(message)) return { path: 'email', reason: message };
  const lead =
    /^([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)*) ((?:must|is|are|should|cannot|has|needs)\b.*)$/s.exec(
      message,
    );
  if (lead) return { path: lead[1]!, reason: lead[2]! };
  // a list's entry named after its field: "when.ipIn: \"x\" is not valid" (a risk rule's)
  const entry = /^([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)+): (.*)$/s.exec(message);
  return entry ? { path: entry[1]!, reason: entry[2]! } : null;
}

const REASONS: [RegExp, (m: RegExpExecArray) => string][] = [
  [/valid CPF or CNPJ/, () => 'CPF ou CNPJ inválido: confira os dígitos.'],
  [/not a valid CPF/, () => 'CPF inválido: confira os dígitos.'],
  [/not a valid CNPJ/, () => 'CNPJ inválido: confira os dígitos.'],
  [/phone number/, () => 'Telefone inválido: informe DDD e número, como (11) 98765-4321.'],
  [/not a valid card number/, () => 'Número do cartão inválido: confira os dígitos.'],
  [/not an email address|format "email"/, () => 'E-mail inválido.'],
  [/must (?:have at least|NOT have fewer than) (\d+) characters?/, (m) => atLeast(Number(m[1]))],
  [/must NOT have more than (\d+) characters?/, (m) => `Use no máximo ${m[1]} caracteres.`],
  [/is required|must have required property/, () => 'Preencha este campo.'],
  [/must not be only spaces/, () => 'Preencha este campo com algo além de espaços.'],
  [/must be plain text/, () => 'Use só texto: sem link, endereço da web ou domínio.'],
  [/must be one line of printable text/, () => 'Use uma linha de texto, sem quebras.'],
  [/must match pattern/, () => 'Formato inválido.'],
  [/must be one of/, () => 'Escolha uma das opções.'],
  [/must be >= (\d+)/, (m) => `Use um valor a partir de ${m[1]}.`],
  [/must be <= (\d+)/, (m) => `Use um valor até ${m[1]}.`],
  [/must be (?:integer|number)/, () => 'Informe um número.'],
  [/must be a finite number or a string/, () => 'Informe um valor em reais, como 150,00.'],
  [
    /does not cover this account's sale fee of (\d+) cents/,
    (m) => `O valor não cobre a tarifa da venda (${money(Number(m[1]))}).`,
  ],
  [/must have (\d+) to (\d+) characters/, (m) => `Use de ${m[1]} a ${m[2]} caracteres.`],
  [/must be a CEP/, () => 'CEP inválido: use 8 dígitos, como 01001-000.'],
  [
    /has expired|is past|four-digit year|must be a month from/,
    () => 'Validade inválida ou cartão vencido: confira o MM/AA.',
  ],
  [
    /absolute http\(s\) URL|must use http or https|must name a host/,
    () => 'Use um endereço completo, começando com https://.',
  ],
  [/must not contain spaces/, () => 'Tire os espaços.'],
];

const atLeast = (n: number) => (n <= 1 ? 'Preencha este campo.' : `Use pelo menos ${n} caracteres.`);

/**
 * What the panel says beside a field the API refused: the API's own reason in Portuguese where the panel knows
 * its phrasing, else a plain "confira este campo" (the server's English is never shown in the panel).
 */
export function fieldMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return '';
  // the limit itself is said in full with the form's error; beside the field, which way it is off
  if (error.code === 'MINIMUM_VALUE') return 'Valor abaixo do mínimo.';
  if (error.code === 'MAXIMUM_VALUE') return 'Valor acima do máximo.';
  if (error.code === 'INSUFFICIENT_BALANCE') return 'Valor acima do saldo disponível.';
  const reason = fieldOfMessage(error.message)?.reason ?? error.message;
  for (const [pattern, text] of REASONS) {
    const m = pattern.exec(reason);
    if (m) return text(m);
  }
  return 'Valor não aceito: confira este campo.';
}

import { Type } from 'typebox';
import { MAX_CHARGE_CENTS } from '../platform/money/money.js';

const List = (description: string, entry: Record<string, unknown> = {}) =>
  Type.Optional(Type.Array(Type.String({ maxLength: 320, ...entry }), { maxItems: 10_000, description }));

const Conditions = Type.Object(
  {
    methods: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Literal('PIX'),
          Type.Literal('BOLETO'),
          Type.Literal('CREDIT_CARD'),
          Type.Literal('DEBIT_CARD'),
        ]),
        {
          description: 'The payment methods the rule applies to; every method when absent',
        },
      ),
    ),
    amountCentsAbove: Type.Optional(
      // above the largest charge a rule matches nothing
      Type.Integer({
        minimum: 0,
        maximum: MAX_CHARGE_CENTS,
        description: 'Sales of more than this many cents',
      }),
    ),
    emailDomainIn: List(
      "The customer's e-mail domain is one of these, or a subdomain of one (example.com; case and a trailing dot ignored)",
    ),
    emailIn: List(
      "The customer's e-mail is one of these, compared canonical: case, a trailing dot, the +tag of the local part and Gmail's dots ignored",
    ),
    documentIn: List("The customer's CPF or CNPJ is one of these (digits, punctuation ignored)"),
    binIn: List("The card's first six digits are one of these"),
    cardFingerprintIn: List(
      "The card's fingerprint (HMAC-SHA-256 of its digits under the deployment's key, 64 hex digits) is one of these",
    ),
    ipIn: List(
      "The address the card was typed from (any other sale: the request's) is one of these addresses or CIDR ranges (an IPv4-mapped IPv6 range is the IPv4 range it denotes)",
    ),
  },
  { additionalProperties: false },
);

export const RiskRuleBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    when: Conditions,
    action: Type.Union([Type.Literal('review'), Type.Literal('block')], {
      description:
        'block: the sale RECUSADO (RISK_BLOCKED), nothing sent to the processor; review (cards): the authorization held uncaptured for a risk operator',
    }),
  },
  { additionalProperties: false },
);

export const RiskRule = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  when: Conditions,
  action: Type.String(),
  createdBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const RiskRuleList = Type.Object({ data: Type.Array(RiskRule) });

/** The Sale's `risk`: the decision taken when it was created, and for a review what became of it. */
export const SaleRisk = Type.Object(
  {
    decision: Type.String({ description: 'allow, review or block' }),
    rule: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      description: 'The id of the rule that decided; null for allow',
    }),
    ruleName: Type.Optional(Type.String()),
    reviewStatus: Type.Optional(
      Type.String({ description: 'A review: pending, approved, rejected or expired' }),
    ),
  },
  { description: "The risk rules' decision on the sale" },
);

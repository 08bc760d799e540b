import { Type } from 'typebox';
import { DOCUMENT_KINDS } from './documents.data.js';

const Text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });

export const SignupBody = Type.Object(
  {
    name: Text(100, 'The business name shown in the panel and to payers'),
    legalName: Text(200, 'Razão social, or the person’s full name'),
    document: Text(20, 'CPF or CNPJ (check digits checked)'),
    email: Text(320, 'The owner’s login'),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    phone: Text(25),
    address: Type.Object(
      {
        street: Text(200),
        number: Text(20),
        complement: Type.Optional(Type.String({ maxLength: 100 })),
        district: Text(100),
        city: Text(100),
        state: Type.String({ pattern: '^[A-Z]{2}$', description: 'UF (SP, RJ, …)' }),
        zipCode: Type.String({ pattern: '^\\d{5}-?\\d{3}$', description: 'CEP' }),
      },
      { additionalProperties: false },
    ),
  },
  {
    examples: [
      {
        name: 'Ateliê Aurora',
        legalName: 'Aurora Costura Ltda',
        document: '11.222.333/0001-81',
        email: 'dona@atelieaurora.com.br',
        password: 'Correta-Cavalo-Bateria-42',
        phone: '+55 11 98765-4321',
        address: {
          street: 'Rua das Flores',
          number: '100',
          district: 'Centro',
          city: 'São Paulo',
          state: 'SP',
          zipCode: '01001-000',
        },
      },
    ],
  },
);

const Kind = Type.Union(
  [
    Type.Literal('id_front'),
    Type.Literal('id_back'),
    Type.Literal('selfie'),
    Type.Literal('company_contract'),
    Type.Literal('proof_of_address'),
  ],
  { description: DOCUMENT_KINDS.join(', ') },
);

export const DocumentMeta = Type.Object({
  id: Type.Integer(),
  kind: Kind,
  contentType: Type.Union([
    Type.Literal('application/pdf'),
    Type.Literal('image/png'),
    Type.Literal('image/jpeg'),
  ]),
  sizeBytes: Type.Integer(),
  uploadedAt: Type.String({ format: 'date-time' }),
});

export const OnboardingState = Type.Object({
  status: Type.Union([
    Type.Literal('pending_review'),
    Type.Literal('active'),
    Type.Literal('suspended'),
    Type.Literal('closed'),
  ]),
  statusReason: Type.Union([Type.String(), Type.Null()], {
    description: "The operator's reason for the status (a suspension's), shown to the account; null: none",
  }),
  payoutHold: Type.Boolean({ description: 'Withdrawals wait for an operator (AWAITING_REVIEW) while true' }),
  payoutHoldReason: Type.Union([Type.String(), Type.Null()], {
    description: "The operator's reason for holding the withdrawals; null: none",
  }),
  documents: Type.Array(DocumentMeta, { description: 'The newest document of each kind sent' }),
  missing: Type.Array(Kind, { description: 'The kinds still to send' }),
});

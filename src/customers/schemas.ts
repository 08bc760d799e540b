import { Type } from 'typebox';
import { ListPage } from '../platform/http/common-schemas.js';

export const CustomerBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'One line of plain text, printed in the e-mails the gateway sends: no link, web address, domain name or IP address (400)',
    }),
    email: Type.String({ minLength: 3, maxLength: 320 }),
    document: Type.String({
      minLength: 11,
      maxLength: 20,
      description: 'CPF or CNPJ (check digits verified)',
    }),
    phone: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: false },
);

export const SavedCard = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Charge it with card: {cardId}' }),
  brand: Type.String(),
  lastFour: Type.String(),
  expMonth: Type.Integer(),
  expYear: Type.Integer(),
});

export const Customer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  email: Type.String(),
  document: Type.String(),
  phone: Type.String(),
  cards: Type.Array(SavedCard),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CustomersPage = ListPage(Customer);

export const CustomerPath = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const CardPath = Type.Object({
  id: Type.String({ maxLength: 64 }),
  cardId: Type.String({ maxLength: 64 }),
});
export const SaveCardBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100, description: 'From POST /api/cards/tokens' }) },
  { additionalProperties: false },
);
export const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.String({ maxLength: 3 })),
});

import { Type } from 'typebox';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { CHECKOUT_METHODS } from './links.data.js';
import type { TakenMethods } from './methods.js';

const PaymentMethods = Type.Object({
  methods: Type.Array(Type.String(), {
    description: `What this gateway can take now, of ${CHECKOUT_METHODS.join(', ')}: a link or a session may offer only these`,
  }),
});

/** The panel asks which methods to offer ("Nova cobrança", the links form): those the gateway can take. */
export function registerMethodRoutes(app: Http, taken: TakenMethods, requireSession: AuthHook): void {
  app.get(
    '/api/panel/payment-methods',
    {
      config: { errorShape: 'envelope', permission: 'money.view' },
      onRequest: requireSession,
      schema: {
        tags: ['panel'],
        summary: 'The payment methods this gateway can take now (PIX, BOLETO, CREDIT_CARD)',
        response: { 200: PaymentMethods, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody },
      },
    },
    async () => ({ methods: CHECKOUT_METHODS.filter((m) => taken.has(m)) }),
  );
}

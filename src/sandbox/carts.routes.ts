import { merchantOf } from '../auth/index.js';
import { abandonCart, cartView, createCart } from '../checkout/index.js';
import type { Http } from '../platform/http/types.js';
import { checkSaleSize, IdPath, normalizeCustomer } from '../sales/index.js';
import { sandboxId } from './ids.js';
import type { SandboxDeps } from './sales.routes.js';
import { Cart, CartBody, sandboxErrors } from './schemas.js';

const errors = sandboxErrors([400, 401, 404, 409]);

export async function sandboxCartRoutes(app: Http, deps: SandboxDeps): Promise<void> {
  app.post(
    '/api/sandbox/carts',
    {
      config: { errorShape: 'envelope', keyScope: 'charges' },
      onRequest: deps.apiKey,
      schema: {
        summary: 'Sandbox: an open cart',
        tags: ['sandbox'],
        body: CartBody,
        response: { 201: Cart, ...errors },
      },
    },
    async (request, reply) => {
      checkSaleSize(request.body);
      const cart = await createCart(deps.db, merchantOf(request).accountId, {
        customer: normalizeCustomer(request.body.customer),
        items: request.body.items,
      });
      return reply.code(201).send(cartView(cart));
    },
  );

  app.post(
    '/api/sandbox/carts/:id/abandon',
    {
      config: { errorShape: 'envelope', keyScope: 'charges', errors: ['CONFLICT', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary: 'Sandbox: the cart is abandoned (cart.abandoned)',
        tags: ['sandbox'],
        params: IdPath,
        response: { 200: Cart, ...errors },
      },
    },
    async (request) => {
      const cart = await abandonCart(deps.db, merchantOf(request).accountId, sandboxId(request.params.id));
      return cartView(cart);
    },
  );
}

import { apiKeyOrSession, merchantOf, requestAccount, requestMay } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { conflict } from '../platform/errors/app-error.js';
import { HttpError } from '../platform/http/errors.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import type { Queue } from '../platform/jobs/queue.js';
import { customerFacts, type RiskRules } from '../risk/index.js';
import type { SaleProcessor, SaleSettler, SaleStatus } from '../sales/index.js';
import {
  checkChargeSplit,
  checkSandboxSale,
  createSandboxSale,
  findSaleRow,
  IdPath,
  openBlockedSale,
  recordAmountDueNow,
  Sale,
  type SandboxSaleInput,
  saleJson,
} from '../sales/index.js';
import { sandboxId } from './ids.js';
import { refundInFull } from './refunds.js';
import { SandboxSaleBody, StatusBody, sandboxErrors } from './schemas.js';

export interface SandboxDeps {
  db: Db;
  queue: Queue;
  apiKey: AuthHook;
  /** The panel's door onto the sandbox's sale creation (Nova cobrança's test charge). */
  requireSession: AuthHook;
  processor: SaleProcessor;
  settler: SaleSettler;
  /** The risk rules in force (a sandbox sale is admitted as any charge); null: none asked. */
  risk: RiskRules | null;
}

const errors = sandboxErrors([400, 401, 404, 409]);
const statusErrors = sandboxErrors([400, 401, 404, 409, 422]);

export async function sandboxSalesRoutes(app: Http, deps: SandboxDeps): Promise<void> {
  app.post(
    '/api/sandbox/sales',
    {
      // open to an account waiting for review (it tries its integration, or the panel's test charge); refused
      // to a suspended one, before the key's scope and the body (the one admission's order). Two doors: the API
      // key, and the panel session with the permission to issue charges
      config: {
        errorShape: 'envelope',
        keyScope: 'charges',
        permission: 'sales.create',
        moves: 'sandbox-charge',
      },
      onRequest: apiKeyOrSession(deps.apiKey, deps.requireSession),
      schema: {
        summary:
          "Sandbox: create a PENDENTE sale as a processor would report it (an account waiting for review may; a suspended one may not). The panel session opens it too (Nova cobrança's test charge)",
        tags: ['sandbox'],
        security: [{ publicKey: [], privateKey: [] }, { session: [] }],
        body: SandboxSaleBody,
        response: { 201: Sale, ...errors },
      },
    },
    async (request, reply) => {
      const accountId = requestAccount(request);
      // The type provider does not narrow enum schemas; the schema has validated the body.
      const input = request.body as unknown as SandboxSaleInput;
      // the one admission: the sale's own checks, then the risk rules as a charge of the API meets them (a
      // blocked buyer's sale is stored refused, RISK_BLOCKED, and nothing is opened)
      const method = input.paymentMethod;
      // (a TRANSFER is no buyer's charge: the rules name the four methods a buyer pays with)
      const risk =
        method === 'TRANSFER'
          ? null
          : deps.risk?.decide({
              method,
              amountCents: input.amount,
              ...customerFacts(input.customer),
              ip: request.ip,
            });
      if (risk?.decision === 'block') {
        const { sale } = await openBlockedSale(deps.db, deps.queue, accountId, input, null, risk, {
          check: async () => {
            checkSandboxSale(input);
            // its split checked as any charge's before the risk rules (the one admission), though never paid
            await checkChargeSplit(deps.db, accountId, input.amount, input, input.split);
          },
          door: 'sandbox',
        });
        return sendJsonText(reply, 201, sale.public_json);
      }
      const sale = await createSandboxSale(deps.db, deps.processor, accountId, input);
      return sendJsonText(reply, 201, await saleJson(deps.db, sale.id));
    },
  );

  app.post(
    '/api/sandbox/sales/:id/status',
    {
      config: {
        errorShape: 'envelope',
        keyScope: 'charges',
        errors: ['CONFLICT', 'NOT_FOUND', 'INSUFFICIENT_BALANCE', 'FORBIDDEN'],
      },
      onRequest: deps.apiKey,
      schema: {
        summary:
          'Sandbox: move a sale to a status, as its processor\'s callback would. ESTORNADO on a PAGO sale is the processor\'s report of a refund in full: what is left is refunded as POST /api/transactions/{id}/refund refunds it (with a "full" key, as that route needs: 403 FORBIDDEN otherwise; a party whose available cannot cover its share: 422 INSUFFICIENT_BALANCE, nothing written), and the refund is listed with its allocation. A card authorization held for a risk review → 409 CONFLICT: the review decides it',
        tags: ['sandbox'],
        params: IdPath,
        body: StatusBody,
        response: { 200: Sale, ...statusErrors },
      },
    },
    async (request, reply) => {
      const { accountId } = merchantOf(request);
      // a refund in full is a refund: the key's scope it needs is the refund route's (decisions.md, "One admission for every sale")
      // (a key refused by its scope: shape D, as the key's hook answers every scope refusal)
      if (request.body.status === 'ESTORNADO' && !requestMay(request, 'sales.create', 'full')) {
        throw new HttpError(
          'FORBIDDEN',
          `This API key's scope is "${merchantOf(request).scope}"; ESTORNADO refunds the sale, which needs a "full" key (as POST /api/transactions/{id}/refund does)`,
          'transaction',
        );
      }
      // a card authorization held for a risk review is the review's to capture or void: no processor reports it
      // paid, refused or anything else on its own, so neither does the sandbox (as the capture route refuses it)
      const held = await findSaleRow(deps.db, sandboxId(request.params.id));
      if (held && Number(held.account_id) === accountId && held.risk?.reviewStatus === 'pending') {
        throw conflict(
          'this sale is held for a risk review: the review in the operators’ console captures or voids it',
        );
      }
      if (request.body.status === 'ESTORNADO') {
        return sendJsonText(reply, 200, await refundInFull(deps, sandboxId(request.params.id), accountId));
      }
      // What a processor callback runs, the sale named by its id and limited to the caller's; a payment is
      // of what the sale asks today (a boleto's discount, or its fine and interest), as the PSP would report it
      if (request.body.status === 'PAGO') {
        await recordAmountDueNow(deps.db, sandboxId(request.params.id), merchantOf(request).accountId);
      }
      const { sale } = await deps.settler.settle({
        ref: sandboxId(request.params.id),
        accountId: merchantOf(request).accountId,
        status: request.body.status as SaleStatus,
      });
      return sendJsonText(reply, 200, sale.public_json);
    },
  );
}

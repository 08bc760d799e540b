import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  Logger,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from '@medusajs/framework/types';
import {
  AbstractPaymentProvider,
  MedusaError,
  PaymentActions,
  PaymentSessionStatus,
} from '@medusajs/framework/utils';
import {
  type ChargeCreate,
  Gateway,
  GatewayError,
  isSaleEvent,
  type Sale,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from '@payment-gateway/sdk';
import { fromCents, toCents, wholeCents } from './amounts';
import {
  chargeCustomer,
  type GatewaySessionData,
  invalid,
  readSessionData,
  storefrontInput,
  withSale,
} from './session-data';

export interface GatewayProviderOptions {
  /** The gateway's origin, e.g. https://pagamentos.example.com */
  baseUrl: string;
  /** The account's API key pair (a `full` key: refunds need it) */
  publicKey: string;
  privateKey: string;
  /** The `whsec_…` secret of the webhook registered for /hooks/payment/gateway_<id>; during a rotation, both */
  webhookSecret: string | string[];
  /** Cards: true charges at checkout; false (default) authorizes and captures when the shop captures */
  capture?: boolean;
  /** Pix: how long the BR Code can be paid, in seconds (default 3600) */
  pixExpiresInSeconds?: number;
  /** Boleto: days from today to its due date when the storefront gives none (default 3) */
  boletoDueDays?: number;
  /** The item the gateway's sale shows (Medusa does not hand a provider the cart's lines) */
  itemTitle?: string;
  /** How far a webhook's signed timestamp may be from now, in seconds (default 300) */
  webhookToleranceSeconds?: number;
  /** Request timeout towards the gateway (default 30000) */
  timeoutMs?: number;
}

/** The sale's metadata key carrying Medusa's payment session id (echoed in every webhook of the sale). */
export const SESSION_KEY = 'medusa_session_id';

/**
 * The gateway as a Medusa v2 payment provider: Pix and boleto charges are opened when the payment session is
 * (the storefront shows the BR Code, the QR code, the boleto's line and PDF from the session's data) and are
 * paid by the buyer later: the gateway's `sale.paid` webhook completes the cart. Cards are charged when Medusa
 * authorizes the session (cart completion) with the token the browser made, and captured by Medusa's capture.
 */
export class GatewayPaymentProvider extends AbstractPaymentProvider<GatewayProviderOptions> {
  static override identifier = 'gateway';

  protected readonly options_: GatewayProviderOptions;
  protected readonly gateway: Gateway;
  protected readonly logger_: Logger | undefined;

  static override validateOptions(options: Record<string, unknown>): void {
    for (const key of ['baseUrl', 'publicKey', 'privateKey', 'webhookSecret'])
      if (!options[key]) throw new Error(`@payment-gateway/medusa: the option \`${key}\` is required`);
  }

  constructor(cradle: Record<string, unknown>, options: GatewayProviderOptions) {
    // biome-ignore lint/complexity/noArguments: Medusa's providers hand their constructor's arguments on as they came
    super(...(arguments as unknown as [Record<string, unknown>, GatewayProviderOptions]));
    this.options_ = options;
    this.logger_ = cradle.logger as Logger | undefined;
    this.gateway = new Gateway({
      baseUrl: options.baseUrl,
      publicKey: options.publicKey,
      privateKey: options.privateKey,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    if (input.currency_code.toLowerCase() !== 'brl')
      throw invalid(`the gateway takes BRL only (the payment is in ${input.currency_code})`);
    const data: GatewaySessionData = { ...storefrontInput(input.data), amountCents: toCents(input.amount) };
    const sessionId = data.session_id ?? input.context?.idempotency_key;
    if (data.method === 'card') {
      // charged when Medusa authorizes the session (the cart's completion): nothing at the gateway yet
      if (!data.card?.token) throw invalid('a card payment needs data.card.token (POST /api/cards/tokens)');
      chargeCustomer(data, input.context);
      return {
        id: sessionId ?? `card_${Date.now()}`,
        data: opened(data),
        status: PaymentSessionStatus.PENDING,
      };
    }
    const sale = await this.openCharge(data, input.context, input.context?.idempotency_key);
    const next = withSale(data, sale);
    return { id: sale.uuid, data: opened(next), status: statusOf(sale) };
  }

  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const data: GatewaySessionData = { ...readSessionData(input.data), amountCents: toCents(input.amount) };
    const before = readSessionData(input.data);
    if (data.method === 'card' || !before.saleId)
      return { data: asData(data), status: PaymentSessionStatus.PENDING };
    if (before.amountCents === data.amountCents && before.saleStatus === 'PENDENTE')
      return { data: asData(data), status: PaymentSessionStatus.PENDING };
    // a Pix or boleto of another amount: the open charge is cancelled and a new one opened
    await this.cancelOpenCharge(before);
    const sale = await this.openCharge(
      { ...data, saleId: undefined },
      input.context,
      `${input.context?.idempotency_key ?? data.session_id}:${data.amountCents}`,
    );
    return { data: asData(withSale(data, sale)), status: statusOf(sale) };
  }

  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    const data = readSessionData(input.data);
    if (data.method === 'card' && !data.saleId) {
      const token = data.card?.token;
      if (!token) throw invalid('a card payment needs data.card.token (POST /api/cards/tokens)');
      const body: ChargeCreate = {
        ...this.chargeBase(data, input.context),
        paymentMethod: 'CREDIT_CARD',
        card: { token },
        installments: data.card?.installments ?? 1,
        capture: this.options_.capture ?? false,
      };
      const sale = await this.call(() =>
        this.gateway.transactions.create(body, {
          idempotencyKey: `medusa:${input.context?.idempotency_key ?? data.session_id}:card`,
        }),
      );
      return { data: asData(withSale(data, sale)), status: statusOf(sale) };
    }
    const sale = await this.sale(data);
    return { data: asData(withSale(data, sale)), status: statusOf(sale) };
  }

  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const data = readSessionData(input.data);
    let sale = await this.sale(data);
    if (sale.status === 'EM_PROCESSAMENTO') {
      await this.call(() => this.gateway.transactions.capture(sale.uuid));
      sale = await this.sale(data);
    }
    if (sale.status !== 'PAGO' && sale.status !== 'ESTORNADO')
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `the gateway's sale ${sale.uuid} is ${sale.status}: there is nothing to capture`,
      );
    return { data: asData(withSale(data, sale)) };
  }

  async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const data = readSessionData(input.data);
    if (!data.saleId) throw invalid('no gateway sale on this payment: nothing to refund');
    await this.sale(data); // this payment's own sale, and no other, is refunded
    const amountCents = wholeCents(input.amount);
    if (amountCents === null)
      throw invalid(`the gateway refunds whole cents: ${String(input.amount)} is not (round it to the cent)`);
    const refunded = await this.call(() =>
      this.gateway.transactions.refund(data.saleId!, {
        amountCents,
        // Medusa's refund id: a retried refund is the same refund at the gateway
        ...(input.context?.idempotency_key
          ? { idempotencyKey: `medusa:${input.context.idempotency_key}` }
          : {}),
      }),
    );
    return { data: asData(withSale(data, refunded)) };
  }

  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    const data = readSessionData(input.data);
    if (!data.saleId) return { data: asData(data) };
    const sale = await this.cancelOpenCharge(data);
    return { data: asData(withSale(data, sale)) };
  }

  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    // a session Medusa drops (the buyer chose another method, the cart changed): its open charge goes too
    return this.cancelPayment(input);
  }

  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const data = readSessionData(input.data);
    return { data: asData(withSale(data, await this.sale(data))) };
  }

  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const data = readSessionData(input.data);
    if (!data.saleId) return { status: PaymentSessionStatus.PENDING, data: asData(data) };
    const sale = await this.sale(data);
    return { status: statusOf(sale), data: asData(withSale(data, sale)) };
  }

  /**
   * A delivery of the gateway's webhook, as Medusa's /hooks/payment/gateway_<id> received it: verified over the
   * raw body (both signature headers, the timestamp within the tolerance), each event id acted on once. A
   * delivery that does not verify throws (Medusa logs it and does nothing). Sales Medusa did not open (no
   * session id in their metadata) are not Medusa's business.
   */
  async getWebhookActionAndData(payload: ProviderWebhookPayload['payload']): Promise<WebhookActionResult> {
    const ignored = { action: PaymentActions.NOT_SUPPORTED };
    let event: WebhookEvent;
    try {
      event = verifyWebhook({
        body: rawBody(payload.rawData),
        headers: payload.headers as Record<string, string | string[] | undefined>,
        secret: this.options_.webhookSecret,
        toleranceSeconds: this.options_.webhookToleranceSeconds ?? 300,
      });
    } catch (err) {
      if (err instanceof WebhookVerificationError)
        throw new MedusaError(MedusaError.Types.UNAUTHORIZED, `gateway webhook refused: ${err.message}`);
      throw err;
    }
    if (!isSaleEvent(event)) return ignored;
    const sessionId = event.payload.metadata?.[SESSION_KEY];
    if (!sessionId) return ignored;
    // every delivery of an event is handed on, a resend included: Medusa's workflow locks the cart and acts on
    // what is not done yet (a session authorized once, a payment captured once, a cart completed once), so a
    // delivery whose processing failed (the gateway unreachable meanwhile) is completed by the next one; an
    // event id kept as "handled" here, before Medusa's workflow ran, made that resend (and Medusa's own retry
    // of the event) do nothing
    const amount = fromCents(Number(event.payload.amount));
    const action = ACTIONS[event.eventType];
    if (!action) return ignored;
    this.logger_?.info(`gateway webhook ${event.eventId} (${event.eventType}): ${action}`);
    return { action, data: { session_id: sessionId, amount } };
  }

  private chargeBase(data: GatewaySessionData, context: InitiatePaymentInput['context']) {
    const sessionId = data.session_id ?? context?.idempotency_key;
    return {
      amount: data.amountCents,
      customer: chargeCustomer(data, context),
      items: [
        {
          title: this.options_.itemTitle ?? 'Pedido',
          unitPrice: data.amountCents,
          quantity: 1,
          tangible: true,
        },
      ],
      metadata: (sessionId ? { [SESSION_KEY]: sessionId } : {}) as Record<string, string>,
    };
  }

  private async openCharge(
    data: GatewaySessionData,
    context: InitiatePaymentInput['context'],
    idempotencyKey: string | undefined,
  ): Promise<Sale & { pixQrCode?: string }> {
    const base = this.chargeBase(data, context);
    let body: ChargeCreate;
    if (data.method === 'pix') {
      body = { ...base, paymentMethod: 'PIX', expiresIn: this.options_.pixExpiresInSeconds ?? 3600 };
    } else {
      if (!data.address)
        throw invalid('a boleto needs data.address {street, number, district, city, state, zipCode}');
      body = {
        ...base,
        paymentMethod: 'BOLETO',
        customer: { ...base.customer, address: data.address },
        boleto: { dueDate: data.dueDate ?? saoPauloDate(this.options_.boletoDueDays ?? 3) },
      };
    }
    return this.call(() =>
      this.gateway.transactions.create(
        body,
        idempotencyKey ? { idempotencyKey: `medusa:${idempotencyKey}` } : {},
      ),
    );
  }

  /**
   * Cancels a Pix or boleto still unpaid, or voids a card only authorized; any other sale is answered as it is (a
   * paid one is refunded instead).
   */
  private async cancelOpenCharge(data: GatewaySessionData): Promise<Sale> {
    const sale = await this.sale(data);
    if (sale.status !== 'PENDENTE' && sale.status !== 'EM_PROCESSAMENTO') return sale;
    try {
      return await this.gateway.transactions.cancel(sale.uuid);
    } catch (err) {
      // paid meanwhile (409 INVALID_STATUS): the sale as it is now
      if (err instanceof GatewayError && err.status === 409) return this.sale(data);
      throw this.medusaError(err);
    }
  }

  /**
   * The session's sale, checked to be the one this provider opened for it (its metadata names the session): a
   * session whose data names another sale (of another buyer, or already paid) is refused, never read as paid.
   */
  private async sale(data: GatewaySessionData): Promise<Sale> {
    if (!data.saleId) throw invalid('no gateway sale on this payment session yet');
    const sale = await this.call(() => this.gateway.transactions.retrieve(data.saleId!));
    const owner = sale.metadata?.[SESSION_KEY];
    if (!owner || (data.session_id !== undefined && owner !== data.session_id)) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `the gateway sale ${data.saleId} was not opened for this payment session`,
      );
    }
    return sale;
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw this.medusaError(err);
    }
  }

  private medusaError(err: unknown): Error {
    if (!(err instanceof GatewayError)) return err as Error;
    if (err.status === 401 || err.status === 403) {
      // the shop's own keys refused (wrong, revoked, or of too narrow a scope): the shop's log says so, and the
      // buyer is told nothing about the shop's configuration (Medusa answers its generic error)
      this.logger_?.error(`gateway refused the shop's API keys: ${err.code ?? err.status} ${err.message}`);
      return new Error('the payment provider is unavailable');
    }
    const type =
      err.status === 400 || err.status === 422
        ? MedusaError.Types.INVALID_DATA
        : err.status === 404
          ? MedusaError.Types.NOT_FOUND
          : err.status === 409
            ? MedusaError.Types.NOT_ALLOWED
            : MedusaError.Types.UNEXPECTED_STATE;
    return new MedusaError(type, `gateway: ${err.code ?? err.status} ${err.message}`);
  }
}

/** The Medusa action each sale event stands for. */
const ACTIONS: Record<string, PaymentActions | undefined> = {
  'sale.pending': PaymentActions.PENDING,
  'sale.paid': PaymentActions.SUCCESSFUL,
  'sale.refused': PaymentActions.FAILED,
  'sale.canceled': PaymentActions.CANCELED,
};

/** A gateway sale's status as a Medusa payment session status. */
export function statusOf(sale: Pick<Sale, 'status'>): PaymentSessionStatus {
  switch (sale.status) {
    case 'PENDENTE':
      return PaymentSessionStatus.PENDING;
    case 'EM_PROCESSAMENTO':
      return PaymentSessionStatus.AUTHORIZED;
    case 'PAGO':
    case 'ESTORNADO':
    case 'CHARGEBACK':
    case 'MED':
      // the money was taken: refunds and disputes are told apart on the sale, not by Medusa's session
      return PaymentSessionStatus.CAPTURED;
    case 'CANCELADO':
      return PaymentSessionStatus.CANCELED;
    default:
      // RECUSADO, FALHA
      return PaymentSessionStatus.ERROR;
  }
}

function asData(data: GatewaySessionData): Record<string, unknown> {
  return data as unknown as Record<string, unknown>;
}

/** What the gateway answered, kept on the session by the provider alone. */
const PROVIDER_KEYS = ['saleId', 'saleStatus', 'refundedCents', 'pix', 'boleto', 'refusalReason'] as const;

/**
 * A new session's data as the provider answers it. Medusa stores the storefront's data with the provider's over it
 * (`{...storefront, ...provider}`): each key the provider owns is given, null where it has nothing yet, so a
 * storefront's own `saleId` (another buyer's paid sale) never stays on the session.
 */
function opened(data: GatewaySessionData): Record<string, unknown> {
  return { ...Object.fromEntries(PROVIDER_KEYS.map((key) => [key, null])), ...asData(data) };
}

function rawBody(raw: unknown): string | Uint8Array {
  if (typeof raw === 'string' || raw instanceof Uint8Array) return raw;
  // a Buffer that crossed a queue as JSON ({ type: 'Buffer', data: [...] })
  const json = raw as { type?: string; data?: number[] } | undefined;
  if (json?.type === 'Buffer' && Array.isArray(json.data)) return Buffer.from(json.data);
  throw new MedusaError(
    MedusaError.Types.INVALID_DATA,
    'gateway webhook: the raw body is missing (the signature is over the bytes as sent)',
  );
}

/** São Paulo's date `days` from now, YYYY-MM-DD (a boleto's due date is a Brazilian calendar day). */
function saoPauloDate(days: number): string {
  const date = new Date(Date.now() + days * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(date);
}

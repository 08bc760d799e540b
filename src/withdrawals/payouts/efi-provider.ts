import { type PixApiClient, PspError } from '../../payment-standards/index.js';
import { AppError } from '../../platform/errors/app-error.js';
import { formatReais } from '../../platform/money/money.js';
import {
  type PayoutCheck,
  type PayoutOrder,
  type PayoutProvider,
  type PayoutResult,
  ProviderUnavailable,
} from './provider.js';

/** Efí's send status (GET /v2/gn/pix/enviados/id-envio/{idEnvio}). */
interface EfiSend {
  idEnvio?: string;
  e2eId?: string;
  valor?: string;
  status?: 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';
}

/**
 * Withdrawals through Efí's Pix send API (https://dev.efipay.com.br/docs/api-pix/envio-pagamento-pix), over
 * the same mutual-TLS OAuth client as the standard API Pix. The send id (`idEnvio`, 1–35 alphanumerics) is the
 * withdrawal uuid without its hyphens, so every retry of one withdrawal is the same send at Efí, which accepts
 * an id once: a timeout or 5xx never becomes a second payment. The outcome is read back (`check`) rather than
 * taken from Efí's unsigned webhook.
 */
export class EfiPayoutProvider implements PayoutProvider {
  readonly name = 'efi';

  constructor(
    private readonly client: PixApiClient,
    private readonly payerKey: string,
  ) {}

  static sendId(reference: string): string {
    return reference.replace(/-/g, '');
  }

  async submit(order: PayoutOrder): Promise<{ externalId: string; rejected?: string }> {
    const id = EfiPayoutProvider.sendId(order.reference);
    let res: { status: number; body: { mensagem?: string; detail?: string; title?: string } | null };
    try {
      res = await this.client.call('PUT', `/v3/gn/pix/${id}`, {
        valor: formatReais(order.amountCents),
        pagador: { chave: this.payerKey, infoPagador: `Saque ${order.reference}` },
        favorecido: { chave: order.pixKey },
      });
    } catch (err) {
      // never reached Efí (no token, connection refused): it stays pending (and cancellable), sent again later
      if (err instanceof PspError && err.notSent) {
        throw new ProviderUnavailable(`Efí unreachable (${err.message}); the withdrawal stays pending`);
      }
      if (err instanceof PspError) return { externalId: id }; // may have reached Efí: read back later
      throw err;
    }
    // 2xx sent; 409 this id was sent already (an earlier attempt whose answer was lost); 408 and 5xx unknown
    if (res.status < 300 || res.status === 409 || res.status === 408 || res.status >= 500)
      return { externalId: id };
    // refused before anything was sent, for a reason that is not the order's: it stays pending (and cancellable)
    if (res.status === 401 || res.status === 403) {
      throw new ProviderUnavailable(
        `Efí refused the credentials (${res.status}); the withdrawal stays pending`,
      );
    }
    if (res.status === 429) {
      throw new ProviderUnavailable(
        'Efí asked to slow down (429); the withdrawal stays pending and is sent again',
      );
    }
    const why = res.body?.mensagem ?? res.body?.detail ?? res.body?.title ?? `HTTP ${res.status}`;
    return { externalId: id, rejected: `Efí refused the send: ${why}` };
  }

  async check(order: PayoutOrder): Promise<PayoutCheck> {
    const id = EfiPayoutProvider.sendId(order.reference);
    const res = await this.client.call<EfiSend>('GET', `/v2/gn/pix/enviados/id-envio/${id}`);
    if (res.status === 404) return { state: 'MISSING' };
    if (res.status !== 200 || !res.body)
      throw new PspError(`Efí answered ${res.status} reading a send`, res.status);
    if (res.body.valor !== undefined && res.body.valor !== formatReais(order.amountCents)) {
      throw new PspError(
        `Efí reports send ${id} for ${res.body.valor}, not ${formatReais(order.amountCents)}`,
        200,
      );
    }
    const externalId = res.body.e2eId ?? id;
    if (res.body.status === 'REALIZADO') return { state: 'COMPLETED', externalId };
    if (res.body.status === 'NAO_REALIZADO')
      return { state: 'REJECTED', externalId, reason: 'NAO_REALIZADO' };
    return { state: 'PROCESSING' };
  }

  /** Efí's webhook carries no signature: the gateway reads each send back instead of trusting a callback. */
  async verifyCallback(): Promise<PayoutResult> {
    throw new AppError('NOT_FOUND', 'Efí payouts are read back from Efí, not reported by callback');
  }
}

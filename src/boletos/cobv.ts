import { randomBytes } from 'node:crypto';
import { brCode, type PixApiClient, PspError } from '../payment-standards/index.js';
import type { BcbSettings } from '../platform/config/rails.js';
import { formatReais, parseReais } from '../platform/money/money.js';
import { type BoletoTerms, formatBp } from './terms.js';

/** The payer as a cobv's `devedor` names them. */
export interface CobvPayer {
  name: string;
  document: string;
  address: { street: string; number: string; district: string; city: string; state: string; zipCode: string };
}

export interface CobvRequest {
  txid: string;
  amountCents: number;
  terms: BoletoTerms;
  payer: CobvPayer;
}

/** The Pix half of a boleto híbrido: a charge with due date (API Pix `cobv`) and its BR Code. */
export interface CobvPsp {
  /** The sale's processor: the one whose webhook credits the cobv's Pix. */
  readonly processor: string;
  open(request: CobvRequest): Promise<{ txid: string; brCode: string }>;
  /** Makes the cobv unpayable (best effort for a boleto that was not stored; expiry). */
  remove(txid: string): Promise<void>;
}

/** The standard's CobVGerada, as far as it is read: nothing assumed well formed. */
interface CobvGerada {
  txid?: unknown;
  status?: unknown;
  location?: unknown;
  valor?: { original?: unknown };
}

/** The cobv's body as the standard defines it (CobVSolicitada): fine, interest and discount mapped. */
export function cobvBody(request: CobvRequest, receiverKey: string) {
  const { terms, payer } = request;
  const who = payer.document.length === 11 ? { cpf: payer.document } : { cnpj: payer.document };
  return {
    calendario: { dataDeVencimento: terms.dueDate, validadeAposVencimento: terms.daysAfterDue },
    devedor: {
      ...who,
      nome: payer.name.slice(0, 200),
      logradouro: `${payer.address.street}, ${payer.address.number} - ${payer.address.district}`.slice(
        0,
        200,
      ),
      cidade: payer.address.city.slice(0, 200),
      uf: payer.address.state,
      cep: payer.address.zipCode,
    },
    valor: {
      original: formatReais(request.amountCents),
      // modalidade 2: percentual; juros modalidade 3: percentual ao mês, dias corridos
      ...(terms.fineBp > 0 ? { multa: { modalidade: 2, valorPerc: formatBp(terms.fineBp) } } : {}),
      ...(terms.monthlyInterestBp > 0
        ? { juros: { modalidade: 3, valorPerc: formatBp(terms.monthlyInterestBp) } }
        : {}),
      // modalidade 1: valor fixo até a data informada
      ...(terms.discount
        ? {
            desconto: {
              modalidade: 1,
              descontoDataFixa: [
                { data: terms.discount.untilDate, valorPerc: formatReais(terms.discount.amountCents) },
              ],
            },
          }
        : {}),
    },
    chave: receiverKey,
  };
}

/** PIX_PROCESSOR=bcb: `PUT /cobv/{txid}` at the PSP; its BR Code is the dynamic code of the cobv's location. */
export class BcbCobv implements CobvPsp {
  readonly processor = 'bcb';

  constructor(
    private readonly client: PixApiClient,
    private readonly settings: BcbSettings,
  ) {}

  async open(request: CobvRequest): Promise<{ txid: string; brCode: string }> {
    const res = await this.client.call<CobvGerada>(
      'PUT',
      `/cobv/${request.txid}`,
      cobvBody(request, this.settings.receiverKey),
    );
    if (res.status !== 201 && res.status !== 200)
      throw new PspError(`PUT /cobv answered ${res.status}`, res.status);
    const { txid, status, location, valor } = res.body ?? {};
    const original = typeof valor?.original === 'string' ? parseReais(valor.original) : null;
    if (txid !== request.txid || status !== 'ATIVA' || original !== request.amountCents) {
      await this.remove(request.txid).catch(() => undefined);
      throw new PspError('PUT /cobv answered another charge (txid, status or amount)', res.status);
    }
    const bare = typeof location === 'string' ? location.replace(/^https?:\/\//, '') : '';
    if (!bare || bare.length > 77 || !/^[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]+$/.test(bare)) {
      await this.remove(request.txid).catch(() => undefined);
      throw new PspError('PUT /cobv answered without a usable location', res.status);
    }
    // a cobv's payload is fetched from its location (the amount due that day is computed there): no field 54
    const code = brCode({
      kind: 'dynamic',
      location: bare,
      merchantName: this.settings.merchantName,
      merchantCity: this.settings.merchantCity,
    });
    return { txid: request.txid, brCode: code };
  }

  async remove(txid: string): Promise<void> {
    const res = await this.client.call('PATCH', `/cobv/${txid}`, {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    });
    if (res.status !== 200 && res.status !== 404)
      throw new PspError(`PATCH /cobv answered ${res.status}`, res.status);
  }
}

/** PIX_PROCESSOR=sandbox: the sandbox plays the PSP; the code is a dynamic BR Code of a sandbox location. */
export class SandboxCobv implements CobvPsp {
  readonly processor = 'sandbox';
  async open(request: CobvRequest): Promise<{ txid: string; brCode: string }> {
    const location = `sandbox.gateway.invalid/cobv/${randomBytes(12).toString('hex')}`;
    return {
      txid: `sbx_${request.txid}`,
      brCode: brCode({ kind: 'dynamic', location, merchantName: 'SANDBOX', merchantCity: 'SAO PAULO' }),
    };
  }
  async remove(): Promise<void> {}
}

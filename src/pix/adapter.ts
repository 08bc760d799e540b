import { brCode, type PixApiClient, PspError } from '../payment-standards/index.js';
import type { BcbSettings } from '../platform/config/rails.js';
import type { Db } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import { formatReais, parseReais } from '../platform/money/money.js';
import {
  ChargeIdTaken,
  type ExpiredCharge,
  type PixCharge,
  type PixChargeProcessor,
  type PixDue,
  RefundNotMade,
  type ScheduledCycle,
} from '../sales/index.js';
import { isLocation, isPixCopiaECola } from './cob-answer.js';
import { acknowledge, endAttempt, otherAmount, refundAttempt } from './devolucoes.js';
import { creditPix, type Pix } from './received.js';
import { pixThatPaid } from './received-records.js';
import { type CobR, creditCycle } from './recurring.js';
import { BCB_PROCESSOR, txidOf } from './txid.js';

/** The standard's CobGerada, as far as the gateway reads it: nothing in it is assumed well formed. */
interface CobGerada {
  txid?: unknown;
  status?: unknown;
  chave?: unknown;
  valor?: { original?: unknown };
  location?: unknown;
  pixCopiaECola?: unknown;
}

/** The standard's CobCompleta (GET /cob/{txid}), as far as the expiry reads it. */
interface CobCompleta {
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
  pix?: Omit<Pix, 'txid'>[];
}

interface Devolucao {
  id: string;
  valor?: string;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
}

/** A charge is a `cob` at the PSP; money moves only when a Pix confirmed by reading it back arrives. */
export class BcbProcessor implements PixChargeProcessor {
  readonly name = BCB_PROCESSOR;
  /** Present when the receiver's account for recurring charges is set (PIX_AUTOMATICO_CONTA). */
  readonly scheduleCycle?: (cycle: ScheduledCycle) => Promise<{ externalTransactionId: string }>;

  constructor(
    private readonly client: PixApiClient,
    private readonly settings: BcbSettings,
    private readonly db: Db,
    private readonly queue: Queue,
  ) {
    if (settings.recurringAccount) this.scheduleCycle = (cycle) => this.putCobr(cycle);
  }

  /**
   * Schedules a mandate's cycle: PUT /cobr/{txid} (the standard's CobRSolicitada), due on `dueDate`, moved to the
   * next business day when that is not one. The answer must be the charge asked for (txid, idRec, amount, a
   * live status), else it is cancelled at the PSP and the scheduling fails. A txid the PSP already has (a
   * scheduler that died after its PUT, before storing the sale) is read back: that same cycle, still live, is
   * taken as scheduled; one that has ended throws ChargeIdTaken.
   */
  private async putCobr(cycle: ScheduledCycle): Promise<{ externalTransactionId: string }> {
    const txid = txidOf(cycle.saleUuid);
    const res = await this.client.call<Partial<CobR>>('PUT', `/cobr/${txid}`, {
      idRec: cycle.idRec,
      calendario: { dataDeVencimento: cycle.dueDate },
      valor: { original: formatReais(cycle.amount) },
      ajusteDiaUtil: true,
      recebedor: this.settings.recurringAccount,
      ...(cycle.payerEmail ? { devedor: { email: cycle.payerEmail } } : {}),
    });
    if (res.status === 400) return this.existingCobr(txid, cycle, res.status);
    if (res.status !== 201 && res.status !== 200)
      throw new PspError(`PUT /cobr answered ${res.status}`, res.status);
    if (!isCycle(res.body, txid, cycle)) {
      await this.client.call('PATCH', `/cobr/${txid}`, { status: 'CANCELADA' }).catch(() => undefined);
      throw new PspError('PUT /cobr answered another charge (txid, idRec, amount or status)', res.status);
    }
    return { externalTransactionId: txid };
  }

  /** A PUT /cobr refused: the txid may be one this cycle already has at the PSP. */
  private async existingCobr(txid: string, cycle: ScheduledCycle, refused: number) {
    const known = await this.client.call<Partial<CobR>>('GET', `/cobr/${txid}`);
    if (known.status === 200 && isCycle(known.body, txid, cycle)) return { externalTransactionId: txid };
    if (known.status === 200) throw new ChargeIdTaken(`txid ${txid} is a charge that has ended`, refused);
    throw new PspError(`PUT /cobr answered ${refused}`, refused);
  }

  /**
   * A scheduled cycle past its retry window (or cancelled by the merchant): read back, CONCLUIDA → its Pix
   * credited as the callback's would be; CRIADA or ATIVA → cancelled at the PSP (refused once its first debit
   * date has come: asked again next round); ended otherwise.
   */
  private async releaseCycle(txid: string): Promise<boolean> {
    const res = await this.client.call<CobR>('GET', `/cobr/${txid}`);
    if (res.status === 404) return true;
    if (res.status !== 200) throw new PspError(`GET /cobr answered ${res.status}`, res.status);
    const cobr = res.body;
    if (cobr.status === 'CONCLUIDA') {
      if (!cobr.pix?.length) throw new PspError('GET /cobr answered CONCLUIDA without its Pix', res.status);
      for (const pix of cobr.pix) await creditCycle({ db: this.db, queue: this.queue }, cobr, pix);
      return true;
    }
    if (cobr.status !== 'CRIADA' && cobr.status !== 'ATIVA') return true;
    const cancelled = await this.client.call<CobR>('PATCH', `/cobr/${txid}`, { status: 'CANCELADA' });
    if (cancelled.status !== 200 || cancelled.body.status !== 'CANCELADA') {
      throw new PspError(`PATCH /cobr answered ${cancelled.status}`, cancelled.status);
    }
    return true;
  }

  /**
   * Opens the `cob` (or, with a due date, the `cobv`). The PSP's answer is checked, not trusted: its amount must
   * be the one asked (else the charge is removed at the PSP and the creation fails), and a cob's `pixCopiaECola`
   * must be a valid BR Code of that amount; one that is not is replaced by the code built from the `location`,
   * and with neither the creation fails. A cobv's code is always its location's (the amount due on the day of
   * payment is read there).
   */
  async createPixCharge(input: {
    saleUuid: string;
    amount: number;
    expiresIn: number;
    due?: PixDue;
  }): Promise<PixCharge> {
    const txid = txidOf(input.saleUuid);
    const kind = input.due ? 'cobv' : 'cob';
    const res = await this.client.call<CobGerada>(
      'PUT',
      `/${kind}/${txid}`,
      input.due
        ? {
            calendario: { dataDeVencimento: input.due.date, validadeAposVencimento: input.due.daysAfter },
            devedor: {
              ...(input.due.payer.document.length === 11
                ? { cpf: input.due.payer.document }
                : { cnpj: input.due.payer.document }),
              nome: input.due.payer.name.slice(0, 200),
              email: input.due.payer.email,
            },
            valor: { original: formatReais(input.amount) },
            chave: this.settings.receiverKey,
          }
        : {
            calendario: { expiracao: input.expiresIn },
            valor: { original: formatReais(input.amount) },
            chave: this.settings.receiverKey,
          },
    );
    if (res.status !== 201 && res.status !== 200)
      throw new PspError(`PUT /${kind} answered ${res.status}`, res.status);
    const original = res.body?.valor?.original;
    if (typeof original !== 'string' || parseReais(original) !== input.amount) {
      await this.removeQuietly(kind, txid);
      throw new PspError(`PUT /${kind} answered a charge of another amount`, res.status);
    }
    // an answer about another charge, key or state is not the charge asked for (fields the standard requires)
    const { txid: answeredTxid, chave, status } = res.body;
    if (answeredTxid !== txid || chave !== this.settings.receiverKey || status !== 'ATIVA') {
      await this.removeQuietly(kind, txid);
      throw new PspError(`PUT /${kind} answered another charge (txid, chave or status)`, res.status);
    }
    const fromLocation = (amountCents?: number) =>
      isLocation(res.body.location)
        ? brCode({
            kind: 'dynamic',
            location: res.body.location,
            merchantName: this.settings.merchantName,
            merchantCity: this.settings.merchantCity,
            ...(amountCents === undefined ? {} : { amountCents }),
          })
        : null;
    const code = input.due
      ? fromLocation()
      : isPixCopiaECola(res.body.pixCopiaECola, input.amount)
        ? res.body.pixCopiaECola
        : fromLocation(input.amount);
    if (!code) {
      await this.removeQuietly(kind, txid);
      throw new PspError(`PUT /${kind} answered without a valid pixCopiaECola or location`, res.status);
    }
    return { externalTransactionId: txid, brCode: code };
  }

  /** A charge the gateway will not keep is removed at the PSP when it can be (so no one pays it); best effort. */
  private async removeQuietly(kind: 'cob' | 'cobv', txid: string): Promise<void> {
    await this.client
      .call('PATCH', `/${kind}/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' })
      .catch(() => undefined);
  }

  /**
   * A refund of the Pix that paid the sale, for the refund's amount (API Pix devolução with `valor`); 'done' when
   * the PSP already reports it DEVOLVIDO. A repeat while an attempt is in progress or done is the same PUT (same
   * devolução id: never a second refund); after an attempt ended NAO_REALIZADO a new one, with a new id, is made.
   */
  async refund(
    sale: { id: number; uuid: string },
    refund: { id: number; amount: number },
  ): Promise<'done' | 'pending'> {
    const e2eid = await pixThatPaid(this.db, sale.id);
    if (!e2eid) throw new RefundNotMade('no confirmed Pix paid this sale', null);
    const attempt = await refundAttempt(this.db, sale, refund, e2eid);
    if (attempt.status === 'DEVOLVIDO') return 'done';
    const res = await this.client.call<Devolucao>('PUT', `/pix/${e2eid}/devolucao/${attempt.id}`, {
      valor: formatReais(Number(attempt.amount)),
    });
    if (res.status !== 201 && res.status !== 200) {
      // the attempt stays in progress (a repeated PUT of an id the PSP has may be refused while the first
      // goes on): read back, it ends when the PSP reports it, or as never made when it does not know it
      throw new PspError(`PUT /pix/{e2eid}/devolucao answered ${res.status}`, res.status);
    }
    const mismatch = otherAmount({ ...res.body, id: attempt.id }, Number(attempt.amount));
    if (mismatch) throw new PspError(mismatch, res.status);
    await acknowledge(this.db, e2eid, attempt.id);
    await endAttempt(this.db, sale.id, e2eid, { id: attempt.id, status: res.body.status });
    if (res.body.status === 'NAO_REALIZADO')
      throw new PspError(
        'the PSP did not perform the refund (a new request makes a new attempt)',
        res.status,
      );
    return res.body.status === 'DEVOLVIDO' ? 'done' : 'pending';
  }

  /**
   * Our expiry is not the PSP's: a buyer may have paid while the webhook was late or lost. The charge is read
   * back first: CONCLUIDA → its Pix are credited as a webhook's would be; ATIVA → removed at the PSP
   * (REMOVIDA_PELO_USUARIO_RECEBEDOR) so it can no longer be paid. Anything the PSP does not answer throws.
   */
  async releaseExpired(charge: ExpiredCharge): Promise<boolean> {
    const txid = charge.externalTransactionId;
    if (charge.paymentMethod === 'PIX_AUTOMATICO') return this.releaseCycle(txid);
    // a boleto's Pix half is a charge with due date: the same read-back and removal under /cobv; a PIX sale's
    // charge is a cob, or a cobv when it was opened with a due date (a subscription's): a txid names one charge
    let kind: 'cob' | 'cobv' = charge.paymentMethod === 'BOLETO' ? 'cobv' : 'cob';
    let res = await this.client.call<CobCompleta>('GET', `/${kind}/${txid}`);
    if (res.status === 404 && kind === 'cob') {
      kind = 'cobv';
      res = await this.client.call<CobCompleta>('GET', `/${kind}/${txid}`);
    }
    if (res.status === 404) return true; // the PSP has no such charge: nothing can pay it
    if (res.status !== 200) throw new PspError(`GET /${kind} answered ${res.status}`, res.status);
    if (res.body.status === 'CONCLUIDA') {
      // paid, but the PSP does not say by which Pix: asked again next round rather than cancelled
      if (!res.body.pix?.length)
        throw new PspError('GET /cob answered CONCLUIDA without its Pix', res.status);
      for (const pix of res.body.pix) await creditPix(this.db, this.queue, { ...pix, txid });
      return true;
    }
    if (res.body.status !== 'ATIVA') return true; // already removed
    const removed = await this.client.call<CobCompleta>('PATCH', `/${kind}/${txid}`, {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    });
    // refused (e.g. paid meanwhile): the next round reads it again
    if (removed.status !== 200 || removed.body.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') {
      throw new PspError(`PATCH /${kind} answered ${removed.status}`, removed.status);
    }
    return true;
  }

  /** Registers the gateway's webhook for Pix received on the receiver key (PUT /webhook/{chave}). */
  async registerWebhook(): Promise<void> {
    const res = await this.client.call('PUT', `/webhook/${encodeURIComponent(this.settings.receiverKey)}`, {
      webhookUrl: webhookUrl(this.settings),
    });
    if (res.status >= 300) throw new PspError(`PUT /webhook answered ${res.status}`, res.status);
  }

  /**
   * Registers the gateway's webhooks for Pix Automático: mandates (PUT /webhookrec) and recurring charges
   * (PUT /webhookcobr). The same base URL as for received Pix: the PSP appends "/rec" and "/cobr".
   */
  async registerRecurringWebhook(kind: 'webhookrec' | 'webhookcobr'): Promise<void> {
    const res = await this.client.call('PUT', `/${kind}`, { webhookUrl: webhookUrl(this.settings) });
    if (res.status >= 300) throw new PspError(`PUT /${kind} answered ${res.status}`, res.status);
  }
}

/** A PSP's answer that is the live cycle asked for. */
function isCycle(body: Partial<CobR> | undefined, txid: string, cycle: ScheduledCycle): boolean {
  return (
    body?.txid === txid &&
    body.idRec === cycle.idRec &&
    parseReais(body.valor?.original ?? '') === cycle.amount &&
    (body.status === 'CRIADA' || body.status === 'ATIVA')
  );
}

/** The PSP appends "/pix" (received Pix), "/rec" (mandates) or "/cobr" (recurring charges) when it calls it. */
export const webhookUrl = (s: BcbSettings) => `${s.publicUrl}/api/providers/bcb/webhook`;

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { barcode, digitableLine, MAX_BOLETO_CENTS, qrSvgDataUri } from '../payment-standards/index.js';
import { GroupCommit } from '../platform/concurrency/group-commit.js';
import type { BoletoSettings } from '../platform/config/boleto.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { isUf } from '../platform/text/address.js';
import { isCnpj, isCpf } from '../platform/text/documents.js';
import { nameForMail } from '../platform/text/names.js';
import { addDays } from '../platform/time/calendar.js';
import { fromSaoPaulo, toSaoPaulo } from '../platform/time/sao-paulo.js';
import type { Customer, SaleItem, SaleOrigin, SaleRow } from '../sales/index.js';
import {
  cartOfCheckout,
  chargeWrites,
  checkChargeSplit,
  checkSaleSize,
  createSale,
  normalizeCustomer,
  normalizePostbackUrl,
} from '../sales/index.js';
import { type Beneficiary, campoLivre } from './campo-livre.js';
import type { CobvPayer, CobvPsp } from './cobv.js';
import { insertBoleto, takeNossoNumeros } from './data.js';
import { BoletoInputError } from './errors.js';
import { purchaseOf } from './purchase.js';
import { type BoletoTermsIn, lastPayableDay, parseTerms } from './terms.js';

export interface BoletoAddressIn {
  street: string;
  number: string;
  district: string;
  city: string;
  state: string;
  zipCode: string;
}

export interface BoletoSaleInput {
  amount: number;
  customer: Customer & { address?: BoletoAddressIn };
  items: Omit<SaleItem, 'id'>[];
  shipping?: Record<string, unknown> | null;
  postbackUrl?: string | null;
  metadata?: Record<string, string>;
  boleto?: BoletoTermsIn;
  /** The charge's split among the platform's recipients (checked by the sales module). */
  split?: unknown;
}

export const beneficiaryOf = (s: BoletoSettings): Beneficiary => ({
  bank: s.bank,
  agency: s.agency,
  account: s.account,
  wallet: s.wallet,
  name: s.beneficiaryName,
  document: s.beneficiaryDocument,
});
/** The key nosso números are unique under: one beneficiary is one bank account and wallet. */
export const beneficiaryKey = (s: BoletoSettings) => `${s.bank}/${s.agency}/${s.account}/${s.wallet}`;

export const tokenHash = (token: string) => createHash('sha256').update(token).digest();

/**
 * A boleto payer's address as printed and registered: each field present and within its length, the UF one of
 * Brazil's, the CEP 8 digits. `field` names it in the refusal (`customer.address` on a sale, `address` on a
 * subscription).
 */
export function boletoAddress(a: BoletoAddressIn | undefined, field = 'customer.address'): BoletoAddressIn {
  if (!a) throw new BoletoInputError(`${field} is required for a boleto`);
  const text = (v: unknown, name: string, max: number) => {
    const t = typeof v === 'string' ? v.trim() : '';
    if (!t || t.length > max) throw new BoletoInputError(`${field}.${name} must be 1 to ${max} characters`);
    return t;
  };
  const state = text(a.state, 'state', 2).toUpperCase();
  if (!isUf(state)) throw new BoletoInputError(`${field}.state must be a UF (SP, RJ, …)`);
  const cep = typeof a.zipCode === 'string' ? a.zipCode.trim() : '';
  if (!/^\d{5}-?\d{3}$/.test(cep)) {
    throw new BoletoInputError(
      `${field}.zipCode must be a CEP: 8 digits, or 5 and 3 with a dash (01001-000)`,
    );
  }
  const zipCode = cep.replace('-', '');
  return {
    street: text(a.street, 'street', 200),
    number: text(a.number, 'number', 20),
    district: text(a.district, 'district', 100),
    city: text(a.city, 'city', 100),
    state,
    zipCode,
  };
}

function payerOf(customer: BoletoSaleInput['customer'], document: string): CobvPayer {
  return { name: customer.name.trim(), document, address: boletoAddress(customer.address) };
}

/**
 * Issues a boleto híbrido: checks the request, takes the beneficiary's next nosso número, opens the cobv at the
 * PSP (no connection held meanwhile), then stores the PENDENTE sale (sale.pending) and the boleto in one
 * transaction. A failure after the cobv was opened removes it at the PSP (best effort).
 */
export class BoletoIssuer {
  /**
   * Nossos números of boletos issued together taken by one statement (one round trip for them all); one at rest is
   * taken on the next turn of the event loop, with those asked for in the same turn.
   */
  private readonly numbers: GroupCommit<null, number>;

  constructor(
    private readonly db: Db,
    private readonly psp: CobvPsp | null,
    private readonly settings: BoletoSettings,
    private readonly publicUrl: string,
  ) {
    this.numbers = new GroupCommit((asked) => takeNossoNumeros(this.db, asked.length), {
      maxBatch: 64,
      parallel: 1,
      retryAlone: false,
    });
  }

  get available(): boolean {
    return this.psp !== null;
  }

  /**
   * A boleto's own checks (its terms, its payer's document and address, its postback), then the account's
   * standing, rates and split: nothing taken, opened or written. `issue` runs them first; a boleto a risk rule
   * blocks is checked by them before it is stored refused.
   */
  async check(
    accountId: number,
    input: BoletoSaleInput,
    hooks: { checkPostback?: (url: string) => Promise<void>; today?: string } = {},
  ) {
    if (!input.boleto) throw new BoletoInputError('boleto is required when paymentMethod is BOLETO');
    if (input.amount > MAX_BOLETO_CENTS)
      throw new BoletoInputError(`amount must be at most ${MAX_BOLETO_CENTS} cents for a boleto`);
    checkSaleSize(input);
    const customer = normalizeCustomer(input.customer);
    if (!isCpf(customer.document) && !isCnpj(customer.document))
      throw new BoletoInputError('customer.document must be a valid CPF or CNPJ');
    const payer = payerOf(input.customer, customer.document);
    const today = hooks.today ?? toSaoPaulo(new Date()).slice(0, 10);
    const terms = parseTerms(input.boleto, input.amount, today);
    const postbackUrl = normalizePostbackUrl(input.postbackUrl);
    if (postbackUrl && hooks.checkPostback) await hooks.checkPostback(postbackUrl);
    // the account's standing, rates and name read once, by a query the charges arriving together share; a fee
    // that takes the amount whole or a split that cannot be is refused before a nosso número or a cobv is taken
    const rates = await checkChargeSplit(
      this.db,
      accountId,
      input.amount,
      { paymentMethod: 'BOLETO' },
      input.split,
      // paid with its discount, the fee is repriced and only the fee payer's share shrinks: checked at that too
      terms.discount ? input.amount - terms.discount.amountCents : undefined,
    );
    return { customer, payer, terms, postbackUrl, rates };
  }

  async issue(
    accountId: number,
    input: BoletoSaleInput,
    hooks: {
      /** Refuses a postback target (addresses the gateway must not call). */
      checkPostback?: (url: string) => Promise<void>;
      /** Runs in the transaction that stores the sale (the Idempotency-Key's binding). */
      bind?: (tx: Queryable, saleId: number) => Promise<void>;
      today?: string;
      /** The payment link or checkout session the payer started from (its sale and its cart carry it). */
      origin?: SaleOrigin;
    } = {},
  ): Promise<SaleRow> {
    if (!this.psp) throw new Error('no PSP opens cobv charges');
    const { customer, payer, terms, postbackUrl, rates } = await this.check(accountId, input, hooks);

    const beneficiary = beneficiaryOf(this.settings);
    const nossoNumero = String(await this.numbers.submit(null)).padStart(11, '0');
    const code = barcode({
      bank: beneficiary.bank,
      dueDate: terms.dueDate,
      amountCents: input.amount,
      campoLivre: campoLivre(beneficiary, nossoNumero),
    });
    const line = digitableLine(code);
    const uuid = randomUUID();
    const cobv = await this.psp.open({
      txid: uuid.replace(/-/g, ''),
      amountCents: input.amount,
      terms,
      payer,
    });
    try {
      const token = randomBytes(24).toString('base64url');
      const boleto = {
        barcode: code,
        digitableLine: line,
        dueDate: terms.dueDate,
        nossoNumero,
        pdfUrl: `${this.publicUrl}/api/boletos/${token}.pdf`,
        pixCopyPaste: cobv.brCode,
        pixQrCode: await qrSvgDataUri(cobv.brCode),
      };
      return await chargeWrites(this.db).run(async (tx) => {
        const sale = await createSale(
          tx,
          {
            accountId,
            amount: input.amount,
            paymentMethod: 'BOLETO',
            customer,
            items: input.items,
            shipping: input.shipping ?? null,
            installments: null,
            processor: this.psp!.processor,
            postbackUrl,
            cartId: await cartOfCheckout(tx, accountId, hooks.origin, {
              customer,
              items: input.items,
              amount: input.amount,
            }),
            recurrence: null,
            pixKey: cobv.brCode,
            externalTransactionId: cobv.txid,
            cardLastFour: null,
            cardBrand: null,
            boletoCode: line,
            metadata: input.metadata ?? {},
            boleto,
            origin: hooks.origin,
            split: input.split,
            // unpaid after its last payable day it is cancelled (and its cobv removed) by the charge expiry
            chargeExpiry: { at: fromSaoPaulo(`${addDays(lastPayableDay(terms), 1)}T00:00`) },
          },
          { notifyPending: true, uuid, rates },
        );
        await insertBoleto(tx, {
          sale_id: sale.id,
          account_id: accountId,
          beneficiary: beneficiaryKey(this.settings),
          nosso_numero: nossoNumero,
          barcode: code,
          digitable_line: line,
          amount: input.amount,
          due_date: terms.dueDate,
          days_after_due: terms.daysAfterDue,
          fine_bp: terms.fineBp,
          monthly_interest_bp: terms.monthlyInterestBp,
          discount_cents: terms.discount?.amountCents ?? null,
          discount_until: terms.discount?.untilDate ?? null,
          txid: cobv.txid,
          pix_copy_paste: cobv.brCode,
          payer,
          pdfTokenHash: tokenHash(token),
          shop_name: nameForMail(rates.get(accountId)?.name ?? null, '') || null,
          description: purchaseOf(input.items),
        });
        if (hooks.bind) await hooks.bind(tx, sale.id);
        return sale;
      });
    } catch (err) {
      await this.psp.remove(cobv.txid).catch(() => undefined);
      throw err;
    }
  }
}

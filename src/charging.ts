import { BcbCobv, BoletoIssuer, boletoMethod, SandboxCobv } from './boletos/index.js';
import {
  type Acquirer,
  acquirerFor,
  CardRefunds,
  CardSales,
  cardMethod,
  setRefusalRatio,
} from './cards/index.js';
import { setCardSettlementDays } from './ledger/index.js';
import type { PixApiClient } from './payment-standards/index.js';
import { type BcbProcessor, MandateCharges, pixMethod, pixProcessors } from './pix/index.js';
import type { Platform } from './platform/context.js';
import { AppError } from './platform/errors/app-error.js';
import { RiskRules } from './risk/index.js';
import {
  cancelCharge,
  cancelOpenChargesOf,
  openBlockedSale,
  PaymentMethods,
  type PixChargeProcessor,
  type Refunder,
  SandboxProcessor,
} from './sales/index.js';
import { type PeriodChargers, SubscriptionBiller, Subscriptions } from './subscriptions/index.js';

/**
 * What opens and charges sales, built by this one factory in every process that charges: the API (app.ts) and
 * the workers (workers.ts). A renewal, a retry and an API charge of the same card meet the same risk rules, the
 * same refusal watch and the same acquirer, because no process assembles them by hand.
 */
export interface Charging {
  /** The rules risk operators write, in this process's memory (reloaded when any process changes them). */
  risk: RiskRules;
  acquirer: Acquirer;
  /** Card sales with the risk rules: API, payer pages, panel, renewals. */
  cardSales: CardSales;
  /** The card sales the gateway may make: none through the sandbox acquirer unless SANDBOX is on. */
  cardCharger: CardSales | null;
  cardRefunds: CardRefunds;
  sandbox: SandboxProcessor | null;
  pixProcessor: PixChargeProcessor | null;
  /** Pix, boleto and card, each behind the sale lifecycle's one port: open, cancel, refund, statuses. */
  methods: PaymentMethods;
  /** Every processor able to refund, by name (the methods' refunders). */
  refunders: ReadonlyMap<string, Refunder>;
  boletoIssuer: BoletoIssuer;
  /** Whether a PSP (or the sandbox) can issue charges with due date: boletos and Pix cobv. */
  issuesBoletos: boolean;
  mandates: MandateCharges;
  subscriptions: Subscriptions;
  biller: SubscriptionBiller;
  /**
   * A closed account's open charges cancelled: PIX and boleto awaiting payment (removed at the PSP first), card
   * authorizations not captured (voided). Run by the close itself and again by a job the close sends.
   */
  cancelAccountCharges(accountId: number): Promise<void>;
  close(): Promise<void>;
}

/** The bcb processor and its PSP client, when PIX_PROCESSOR=bcb (each process starts its own). */
export interface BcbRails {
  client: PixApiClient;
  processor: BcbProcessor;
}

export async function startCharging(platform: Platform, bcb: BcbRails | null): Promise<Charging> {
  const { config, db, queue, log } = platform;
  const risk = new RiskRules(db, log);
  await risk.start();
  const acquirer = acquirerFor(config.cards, db);
  setCardSettlementDays(config.cards.settlementDays);
  setRefusalRatio(config.riskRefusalRatio);
  const cardSales = new CardSales(db, queue, acquirer, config.secretsKey, {
    allowPrivateTargets: config.webhookAllowPrivate,
    outbox: platform.outbox,
    risk,
  });
  // the sandbox acquirer approves without charging anyone: card sales through it only with SANDBOX on
  const cardCharger = config.cards.acquirer === 'sandbox' && !config.sandbox ? null : cardSales;
  const cardRefunds = new CardRefunds(db, acquirer);
  const sandbox = config.sandbox ? new SandboxProcessor(config.secretsKey) : null;
  const pix = pixProcessors(config, sandbox, bcb?.processor ?? null);
  const cobv =
    config.pixProcessor === 'bcb' && bcb && config.bcb
      ? new BcbCobv(bcb.client, config.bcb)
      : config.pixProcessor === 'sandbox'
        ? new SandboxCobv()
        : null;
  const boletoIssuer = new BoletoIssuer(db, cobv, config.boleto, config.publicUrl);
  const allowPrivateTargets = config.webhookAllowPrivate;
  const methods = new PaymentMethods([
    pixMethod({
      db,
      queue,
      processor: pix.pixProcessor,
      processors: pix.processors,
      allowPrivateTargets,
    }),
    boletoMethod({
      db,
      queue,
      issuer: boletoIssuer,
      pixProcessor: pix.pixProcessor,
      processors: pix.processors,
      allowPrivateTargets,
    }),
    cardMethod({ sales: cardSales, charger: cardCharger, refunds: cardRefunds }),
  ]);
  const mandates = new MandateCharges(db, queue, { debit: sandbox, scheduler: pix.pixProcessor }, log);
  // the customers' e-mails of subscriptions: the sandbox's say they are tests
  const subscriptionMail = {
    queue,
    key: config.secretsKey,
    publicUrl: config.publicUrl,
    testMode: config.sandbox,
  };
  const subscriptions = new Subscriptions(db, {
    mandates,
    mail: subscriptionMail,
    secretsKey: config.secretsKey,
    publicUrl: config.publicUrl,
    boletoDaysBefore: config.subscriptions.boletoDaysBefore,
    cancelOpenCharge: (accountId, saleId) =>
      cancelCharge(db, queue, pix.pixProcessor, accountId, { kind: 'numeric', id: saleId }).then(
        () => undefined,
        (err: unknown) => {
          // already paid or ended: nothing to cancel; anything else expires at its due date
          if (err instanceof AppError && err.code === 'INVALID_STATUS') return;
          log.warn(
            { sale: saleId, err },
            'an ended subscription’s open charge was not cancelled: it expires',
          );
        },
      ),
  });
  const chargers: PeriodChargers = {
    card: cardCharger,
    pix: pix.pixProcessor,
    boleto: cobv ? boletoIssuer : null,
    mandates,
    risk: {
      rules: risk,
      refuse: (accountId, input, decision, origin, inTx, recurrence) =>
        openBlockedSale(db, queue, accountId, input, null, decision, { origin, inTx, recurrence }),
    },
  };
  const biller = new SubscriptionBiller(
    db,
    subscriptions,
    chargers,
    config.subscriptions,
    subscriptionMail,
    log,
  );
  return {
    risk,
    acquirer,
    cardSales,
    cardCharger,
    cardRefunds,
    sandbox,
    pixProcessor: pix.pixProcessor,
    methods,
    refunders: methods.refunders,
    boletoIssuer,
    issuesBoletos: cobv !== null,
    mandates,
    subscriptions,
    biller,
    cancelAccountCharges: async (accountId) => {
      await cancelOpenChargesOf(db, queue, pix.pixProcessor, accountId, log);
      await cardSales.voidOpenOf(accountId, log);
    },
    close: async () => {
      await risk.close();
      await acquirer.close();
    },
  };
}

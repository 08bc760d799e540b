import type { EventFeed } from '../events/index.js';
import type { Db } from '../platform/db/db.js';
import type { AuthHook, CardAttemptCheck, Http } from '../platform/http/types.js';
import type { Queue } from '../platform/jobs/queue.js';
import type { RiskRules } from '../risk/index.js';
import type { BoletoSales, PixChargeProcessor } from '../sales/index.js';
import { PublicBoletos } from './boleto-pay.js';
import { registerCardPayerRoutes } from './card.routes.js';
import { type PayerCards, PublicCards } from './card-pay.js';
import type { CheckoutMethod } from './links.data.js';
import { PaymentLinks } from './links.js';
import { registerLinkRoutes } from './links.routes.js';
import type { TakenMethods } from './methods.js';
import { registerMethodRoutes } from './methods.routes.js';
import { registerPageRoutes } from './page.routes.js';
import { PaidSales } from './paid-watch.js';
import { PublicCheckout } from './pay.js';
import { registerPublicRoutes } from './public.routes.js';
import { CheckoutSessions } from './sessions.js';
import { registerSessionRoutes } from './sessions.routes.js';
import { registerStreamRoutes } from './stream.routes.js';
import { StreamsPerAddress } from './stream-limit.js';

export interface CheckoutDeps {
  db: Db;
  /** PUBLIC_URL: the pages' addresses are built on it. */
  publicUrl: string;
  apiKey: AuthHook;
  requireSession: AuthHook;
  /** The per-address limit of the payer's routes; null when off. */
  perIp: AuthHook | null;
  /** The card-testing limits of the payer's card tokenization; null when off. */
  cardAttempt: CardAttemptCheck | null;
  /** Who opens PIX charges (the sales module's); null when none is configured (503). */
  pixProcessor: PixChargeProcessor | null;
  /** Who issues boletos (the boletos module's, through the sales module's interface); null when none (503). */
  boletoSales: BoletoSales | null;
  /** Who tokenizes and charges the payer's card (the cards module's payerCards); null when no acquirer is usable. */
  cards: PayerCards | null;
  allowPrivateTargets: boolean;
  /** The risk rules in force (a payer's PIX or boleto payment is decided here; a card by the cards module). */
  risk: RiskRules | null;
  /** The job queue a refused sale's move is recorded with. */
  queue: Queue;
  /** The process's reader of new notification facts: the pages learn of their payment from it. */
  feed: EventFeed;
  /** CHECKOUT_STREAMS_PER_IP: the payer's open streams per source address (0: no cap). */
  streamsPerIp: number;
  /** SANDBOX on: the payer's pages say they are a test. */
  testMode: boolean;
}

/** Payment links (API and panel), checkout sessions (API), the payer's routes of both and their hosted pages. */
export async function checkoutRoutes(app: Http, deps: CheckoutDeps): Promise<void> {
  const taken = takenMethods(deps);
  const links = new PaymentLinks(deps.db, deps.publicUrl, taken);
  registerLinkRoutes(app, links, { kind: 'api', path: '/api/payment-links', auth: deps.apiKey });
  registerLinkRoutes(app, links, {
    kind: 'panel',
    path: '/api/panel/payment-links',
    auth: deps.requireSession,
  });
  registerSessionRoutes(app, new CheckoutSessions(deps.db, deps.publicUrl, taken), deps.apiKey);
  registerMethodRoutes(app, taken, deps.requireSession);
  const checkout = new PublicCheckout({ ...deps, taken });
  registerPublicRoutes(
    app,
    checkout,
    new PublicBoletos(checkout, deps.boletoSales, deps.publicUrl),
    deps.perIp,
  );
  registerCardPayerRoutes(
    app,
    new PublicCards(deps.db, checkout, deps.cards, deps.publicUrl),
    deps.perIp,
    deps.cardAttempt,
  );
  registerStreamRoutes(
    app,
    deps.db,
    { paid: new PaidSales(deps.feed), limit: new StreamsPerAddress(deps.streamsPerIp) },
    deps.perIp,
  );
  registerPageRoutes(app, checkout, deps.perIp, deps.testMode);
}

/** What this gateway can take now: a method whose processor, issuer or acquirer app.ts wired. */
function takenMethods(deps: CheckoutDeps): TakenMethods {
  const taken = new Set<CheckoutMethod>();
  if (deps.pixProcessor) taken.add('PIX');
  if (deps.boletoSales) taken.add('BOLETO');
  if (deps.cards) taken.add('CREDIT_CARD');
  return taken;
}

import type { BoletoIssuer } from '../boletos/index.js';
import type { Db } from '../platform/db/db.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import type { PixChargeProcessor } from '../sales/index.js';
import { PaymentLinks } from './links.js';
import { registerLinkRoutes } from './links.routes.js';
import { PublicCheckout } from './pay.js';
import { registerPublicRoutes } from './public.routes.js';
import { CheckoutSessions } from './sessions.js';
import { registerSessionRoutes } from './sessions.routes.js';

export interface CheckoutDeps {
  db: Db;
  /** PUBLIC_URL: the pages' addresses are built on it. */
  publicUrl: string;
  apiKey: AuthHook;
  requireSession: AuthHook;
  /** The per-address limit of the payer's routes; null when off. */
  perIp: AuthHook | null;
  /** Who opens PIX charges (the sales module's); null when none is configured (503). */
  pixProcessor: PixChargeProcessor | null;
  allowPrivateTargets: boolean;
  /** Who issues boletos (the boletos module's); null when no PSP opens them (503). */
  boletos: BoletoIssuer | null;
}

/** Payment links (API and panel), checkout sessions (API) and the payer's routes of both. */
export async function checkoutRoutes(app: Http, deps: CheckoutDeps): Promise<void> {
  const links = new PaymentLinks(deps.db, deps.publicUrl);
  registerLinkRoutes(app, links, { kind: 'api', path: '/api/payment-links', auth: deps.apiKey });
  registerLinkRoutes(app, links, {
    kind: 'panel',
    path: '/api/panel/payment-links',
    auth: deps.requireSession,
  });
  registerSessionRoutes(app, new CheckoutSessions(deps.db, deps.publicUrl), deps.apiKey);
  registerPublicRoutes(app, new PublicCheckout(deps), deps.perIp);
}

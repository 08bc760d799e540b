import type { Config } from '../platform/config/config.js';
import type { PixChargeProcessor, Refunder, SandboxProcessor } from '../sales/index.js';
import type { BcbProcessor } from './adapter.js';

/**
 * The processor that opens new PIX charges (PIX_PROCESSOR; none → 503), and every processor that can refund
 * the sales it charged: sandbox sales stay refundable while SANDBOX is on, whatever opens new charges.
 */
export function pixProcessors(
  config: Config,
  sandbox: SandboxProcessor | null,
  bcb: BcbProcessor | null,
): { pixProcessor: PixChargeProcessor | null; refunders: Map<string, Refunder> } {
  const pixProcessor =
    config.pixProcessor === 'sandbox' ? sandbox : config.pixProcessor === 'bcb' ? bcb : null;
  const refunders = new Map<string, Refunder>();
  if (sandbox) refunders.set(sandbox.name, sandbox);
  if (bcb) refunders.set(bcb.name, bcb);
  return { pixProcessor, refunders };
}

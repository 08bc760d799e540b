import type { Config } from '../platform/config/config.js';
import type { PixChargeProcessor, SandboxProcessor } from '../sales/index.js';
import type { BcbProcessor } from './adapter.js';

/**
 * The processor that opens new PIX charges (PIX_PROCESSOR; none → 503), and every processor whose charges may
 * still be open and that can refund the sales it charged: sandbox sales stay refundable while SANDBOX is on,
 * whatever opens new charges.
 */
export function pixProcessors(
  config: Config,
  sandbox: SandboxProcessor | null,
  bcb: BcbProcessor | null,
): {
  pixProcessor: PixChargeProcessor | null;
  processors: Map<string, PixChargeProcessor>;
} {
  const pixProcessor =
    config.pixProcessor === 'sandbox' ? sandbox : config.pixProcessor === 'bcb' ? bcb : null;
  const processors = new Map<string, PixChargeProcessor>();
  if (sandbox) processors.set(sandbox.name, sandbox);
  if (bcb) processors.set(bcb.name, bcb);
  return { pixProcessor, processors };
}

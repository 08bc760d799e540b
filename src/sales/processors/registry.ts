import type { Config } from '../../platform/config.js';
import type { PixChargeProcessor } from './processor.js';
import type { SandboxProcessor } from './sandbox.js';

/**
 * The processor that opens new PIX charges (PIX_PROCESSOR; none → 503), and every processor that can refund
 * the sales it charged: sandbox sales stay refundable while SANDBOX is on, whatever opens new charges.
 */
export function pixProcessors(
  config: Config,
  sandbox: SandboxProcessor | null,
): { pixProcessor: PixChargeProcessor | null; refunders: ReadonlyMap<string, PixChargeProcessor> } {
  const pixProcessor = config.pixProcessor === 'sandbox' ? sandbox : null;
  const refunders = new Map<string, PixChargeProcessor>();
  if (sandbox) refunders.set(sandbox.name, sandbox);
  if (pixProcessor) refunders.set(pixProcessor.name, pixProcessor);
  return { pixProcessor, refunders };
}

import { PixApiClient } from '../../payment-standards/index.js';
import type { Config } from '../../platform/config/config.js';
import type { Db } from '../../platform/db/db.js';
import { EfiPayoutProvider } from './efi-provider.js';
import type { PayoutProvider } from './provider.js';
import { SandboxPayoutProvider } from './sandbox-provider.js';

/** The payout providers this gateway can use, by name; withdrawals record which one they went to. */
export interface PayoutProviders {
  sandbox: SandboxPayoutProvider;
  /** The one PAYOUT_PROVIDER chose for new withdrawals; null: withdrawals wait PENDING until one is set. */
  active: PayoutProvider | null;
  byName(name: string): PayoutProvider | undefined;
  close(): Promise<void>;
}

export function payoutProviders(db: Db, config: Config): PayoutProviders {
  const sandbox = new SandboxPayoutProvider(db);
  const client = config.efi ? new PixApiClient(config.efi.api, config.efi.timeoutMs) : null;
  const efi = client && config.efi ? new EfiPayoutProvider(client, config.efi.payerKey) : null;
  const all = new Map<string, PayoutProvider>([[sandbox.name, sandbox]]);
  if (efi) all.set(efi.name, efi);
  const active = config.payoutProvider === 'none' ? null : (all.get(config.payoutProvider) ?? null);
  return { sandbox, active, byName: (name) => all.get(name), close: async () => client?.close() };
}

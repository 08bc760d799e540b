import type { Db } from '../platform/db.js';
import type { PayoutProvider } from './provider.js';
import { SandboxPayoutProvider } from './sandbox-provider.js';

/** The payout providers this gateway can use, by name; withdrawals record which one they went to. */
export interface PayoutProviders {
  sandbox: SandboxPayoutProvider;
  byName(name: string): PayoutProvider | undefined;
}

export function payoutProviders(db: Db): PayoutProviders {
  const sandbox = new SandboxPayoutProvider(db);
  const all = new Map<string, PayoutProvider>([[sandbox.name, sandbox]]);
  return { sandbox, byName: (name) => all.get(name) };
}

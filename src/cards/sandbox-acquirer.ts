import { randomUUID } from 'node:crypto';
import type { Acquirer } from './acquirer.js';

/** CARD_ACQUIRER=sandbox: a token of its own for every card, and the card forgotten at once. */
export class SandboxAcquirer implements Acquirer {
  readonly name = 'sandbox';

  async tokenize(): Promise<{ acquirerToken: string }> {
    return { acquirerToken: `sandbox-${randomUUID()}` };
  }

  async close(): Promise<void> {}
}

import type { CheckedCard } from './card-checks.js';

/** Who holds the cards: the gateway keeps only the token it hands back. */
export interface Acquirer {
  readonly name: string;
  tokenize(card: CheckedCard): Promise<{ acquirerToken: string }>;
  close(): Promise<void>;
}

import type { CardSettings } from '../platform/config/cards.js';
import type { Queryable } from '../platform/db/db.js';
import type { Acquirer } from './acquirer.js';
import { CieloAcquirer } from './cielo-acquirer.js';
import { SandboxAcquirer } from './sandbox-acquirer.js';

/** The acquirer CARD_ACQUIRER names. */
export function acquirerFor(settings: CardSettings, db: Queryable): Acquirer {
  return settings.cielo ? new CieloAcquirer(settings.cielo) : new SandboxAcquirer(db);
}

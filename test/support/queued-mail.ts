import { unseal } from '../../src/platform/crypto/sealed.js';
import type { TestServer } from './server.js';

/**
 * The texts of the e-mails queued for a cause (`subscription-started:<id>`, …), opened with the server's
 * SECRETS_KEY as its sender opens them, their white space folded; whether or not a worker sent them yet.
 */
export async function queuedMailTexts(server: TestServer, cause: string): Promise<string[]> {
  const rows = await server.runtime.platform.db.query<{ text_body: string }>(
    'SELECT text_body FROM mail_messages WHERE cause LIKE $1 ORDER BY id',
    [`${cause}:%`],
  );
  return rows.map((r) => unseal(server.runtime.platform.config.secretsKey, r.text_body).replace(/\s+/g, ' '));
}

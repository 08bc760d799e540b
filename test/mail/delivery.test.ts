import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { linkToken, Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

const servers: TestServer[] = [];
const boxes: Mailbox[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const b of boxes) await b.stop();
});

const invite = (server: TestServer, panel: Record<string, string>, email: string) =>
  call('POST', `${server.url}/api/users/invitations`, {
    headers: panel,
    body: { email, name: 'Convidada', role: 'viewer' },
  });

describe('e-mail', () => {
  it('waits out an SMTP server that is down and sends once it is back, exactly once', async () => {
    const mailbox = await Mailbox.start();
    boxes.push(mailbox);
    const server = await startServer({ env: { SMTP_URL: mailbox.url } });
    servers.push(server);
    const owner = await createMerchant(server);
    await mailbox.stop();
    expect((await invite(server, owner.panel, 'patient@example.com')).status).toBe(201);
    const { db } = server.runtime.platform;
    const failed = await waitUntil(async () => {
      const [row] = await db.query<{ attempts: number; last_error: string | null; sent_at: Date | null }>(
        'SELECT attempts, last_error, sent_at FROM mail_messages WHERE recipient = $1',
        ['patient@example.com'],
      );
      return row && row.attempts >= 1 && row;
    });
    expect(failed.sent_at).toBeNull();
    expect(failed.last_error).toMatch(/ECONNREFUSED|connect/i);

    await mailbox.start();
    const mail = await mailbox.waitFor('patient@example.com', /Convite/, 60_000);
    expect(mail.text).toContain('#/convite/');
    expect(mail.html).toContain('<a href=');
    // a later run of the job (a retry racing the send) finds it sent and sends nothing
    const [row] = await db.query<{ id: number }>('SELECT id FROM mail_messages WHERE recipient = $1', [
      'patient@example.com',
    ]);
    await db.tx((tx) => server.runtime.platform.queue.send(tx, 'mail.send', { messageId: Number(row!.id) }));
    await new Promise((r) => setTimeout(r, 2000));
    expect(mailbox.to('patient@example.com')).toHaveLength(1);
  }, 90_000);

  it('without SMTP_URL each message is an .eml file under DATA_DIR/mail/', async () => {
    const server = await startServer();
    servers.push(server);
    const owner = await createMerchant(server);
    expect((await invite(server, owner.panel, 'file@example.com')).status).toBe(201);
    const dir = path.join(server.env.DATA_DIR!, 'mail');
    const file = await waitUntil(async () => {
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names.filter((n) => n.endsWith('.eml'))) {
        const text = await readFile(path.join(dir, name), 'utf8');
        // the invitation's link is of one use: the gateway's user alone reads it, as every secret in DATA_DIR
        if (text.includes('To: file@example.com')) {
          expect((await stat(path.join(dir, name))).mode & 0o777).toBe(0o600);
          return text;
        }
      }
      return undefined;
    });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(file).toMatch(/^Subject: =\?UTF-8\?|^Subject: \[Teste\] Convite/m);
    expect(file).toContain('Content-Type: text/html');
    expect(
      linkToken(
        { to: '', subject: '', html: '', messageId: '', text: file.replace(/=\r?\n/g, '') },
        'convite',
      ),
    ).toBeTruthy();
  });
});

import { randomBytes } from 'node:crypto';
import type { Role } from '../../src/auth/roles.js';
import type { TestMerchant } from './factories.js';
import { call } from './http.js';
import { linkToken, type Mailbox } from './mailbox.js';

export interface TeamUser {
  id: number;
  email: string;
  password: string;
  role: Role;
  cookie: string;
  csrf: string;
  /** Headers for panel routes (session cookie and CSRF token). */
  panel: Record<string, string>;
}

/** Invites a user with `role` as the owner, reads the e-mailed link and accepts it: the user is signed in. */
export async function addTeamUser(
  url: string,
  owner: Pick<TestMerchant, 'panel'>,
  mailbox: Mailbox,
  role: Role,
): Promise<TeamUser> {
  const email = `${role}-${randomBytes(5).toString('hex')}@example.com`;
  const invited = await call<{ id: number }>('POST', `${url}/api/users/invitations`, {
    headers: owner.panel,
    body: { email, name: `A ${role}`, role },
  });
  if (invited.status !== 201) throw new Error(`invitation failed: ${invited.status} ${invited.text}`);
  const token = linkToken(await mailbox.waitFor(email, /Convite/), 'convite');
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const accepted = await call<{ csrfToken: string }>('POST', `${url}/api/auth/accept-invitation`, {
    body: { token, password },
  });
  if (accepted.status !== 200) throw new Error(`acceptance failed: ${accepted.status} ${accepted.text}`);
  const setCookie = accepted.headers['set-cookie'];
  const cookie = (Array.isArray(setCookie) ? setCookie[0]! : setCookie!).split(';')[0]!;
  const csrf = accepted.body.csrfToken;
  return {
    id: invited.body.id,
    email,
    password,
    role,
    cookie,
    csrf,
    panel: { cookie, 'x-csrf-token': csrf },
  };
}

import { createServer } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevPsp } from '../../src/devpsp/server.js';
import { formEncode, PixApiClient, PspError } from '../../src/payment-standards/pix-api-client.js';
import type { BcbSettings } from '../../src/platform/config/rails.js';

// credentials with every character RFC 6749 §2.3.1 makes the client encode
const CLIENT_ID = 'gate:way%2B+&é id';
const CLIENT_SECRET = 's3:cr%et+&/=ção ?';

let psp: DevPsp;
let settings: BcbSettings;

beforeAll(async () => {
  psp = new DevPsp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  const url = await psp.start();
  settings = {
    apiUrl: url,
    oauthUrl: `${url}/oauth/token`,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    cert: psp.certs.clientCert,
    key: psp.certs.clientKey,
    ca: psp.certs.ca,
    receiverKey: 'a@b.c',
    publicUrl: 'http://127.0.0.1:1',
    merchantName: 'X',
    merchantCity: 'Y',
    recurrenceAccountId: null,
    recurringAccount: null,
  };
});
afterAll(async () => {
  await psp?.close();
});

describe('OAuth client credentials (RFC 6749 §2.3.1)', () => {
  it('form-urlencodes id and secret before base64', () => {
    expect(formEncode(CLIENT_ID)).toBe('gate%3Away%252B%2B%26%C3%A9+id');
    expect(formEncode('abc-._*09')).toBe('abc-._*09');
  });

  it('a client id and secret with ":" "%" "+" "&" and non-ASCII get a token', async () => {
    const client = new PixApiClient(settings, 5000);
    try {
      const res = await client.call('GET', '/pix/E99999999202611221200aaaaaaaaaaa');
      expect(res.status).toBe(404); // authorized: the Pix just does not exist
      expect(psp.state.tokensIssued).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('the local PSP refuses the same credentials sent without the encoding', async () => {
    const agent = new Agent({
      connect: { cert: settings.cert, key: settings.key, ca: settings.ca },
    });
    try {
      const raw = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
      const res = await request(settings.oauthUrl, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Basic ${raw}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      await res.body.dump();
      expect(res.statusCode).toBe(401);
    } finally {
      await agent.close();
    }
  });
});

describe('answers that are not the standard’s', () => {
  it('a body that is not JSON (a proxy’s error page) is a PspError naming the call, not quoting the body', async () => {
    const client = new PixApiClient(settings, 5000);
    try {
      psp.failNext('GET /pix', { status: 502, html: '<html>upstream 10.0.0.5:8443 refused</html>' });
      const err = await client.call('GET', '/pix/E99999999202611221200aaaaaaaaaaa').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PspError);
      expect((err as PspError).status).toBe(502);
      expect((err as PspError).message).toBe('GET /pix answered 502 with a body that is not JSON');
    } finally {
      await client.close();
    }
  });
});

describe('a PSP that accepts the connection and never answers the TLS handshake', () => {
  it('gets the whole timeout the client was given, not undici’s 10 s connect default', async () => {
    const silent = createServer(() => undefined); // accepts, says nothing
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const client = new PixApiClient(
      { ...settings, apiUrl: `https://127.0.0.1:${port}`, oauthUrl: `https://127.0.0.1:${port}/oauth/token` },
      14_000,
    );
    try {
      let settled = false;
      const outcome = client.call('GET', '/pix/E99999999202611221200aaaaaaaaaaa').then(
        () => 'answered',
        (err: unknown) => err,
      );
      void outcome.then(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      expect(settled).toBe(false); // well past undici's default (10 s, checked every 0.5 s): still waiting
      const err = await outcome;
      expect(err).toBeInstanceOf(PspError);
      expect((err as PspError).status).toBeNull();
    } finally {
      await client.close();
      silent.close();
    }
  }, 30_000);
});

describe('a TLS failure with the PSP', () => {
  it('is said as such, pointing at the certificates, not as the PSP unreachable', async () => {
    // another local PSP's CA: this PSP's certificate is not one it signed
    const other = new DevPsp();
    await other.start();
    const client = new PixApiClient({ ...settings, ca: other.certs.ca }, 5000);
    try {
      const failed = await client
        .call('GET', '/pix/E99999999202611221200cccccccccccc')
        .catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(PspError);
      expect((failed as PspError).message).toMatch(
        /^TLS with the PSP failed \(.+\): check PIX_CERT, PIX_KEY and PIX_CA/,
      );
    } finally {
      await client.close();
      await other.close();
    }
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DevAcquirer } from './server.js';

/**
 * `gateway dev-acquirer [--port N]`: starts the local Cielo-like acquirer with fresh merchant credentials and
 * prints the settings that point a gateway at it. Runs until stopped.
 */
export async function runDevAcquirer(argv: string[]): Promise<DevAcquirer> {
  const portIndex = argv.indexOf('--port');
  const port = portIndex >= 0 ? Number(argv[portIndex + 1]) : 8444;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be a port number');
  const acquirer = new DevAcquirer({ port });
  const url = await acquirer.start();
  // the CA of its certificate, generated at start: the gateway trusts it for this acquirer only
  const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'dev-acquirer-')), 'ca.pem');
  writeFileSync(caFile, acquirer.ca);
  const settings = {
    CARD_ACQUIRER: 'cielo',
    CIELO_MERCHANT_ID: acquirer.merchantId,
    CIELO_MERCHANT_KEY: acquirer.merchantKey,
    CIELO_API_URL: url,
    CIELO_QUERY_URL: url,
    CIELO_CA_FILE: caFile,
  };
  process.stdout.write(
    [
      `local acquirer (Cielo e-commerce API 3.0) listening on ${url} (HTTPS, its CA in ${caFile})`,
      'start the gateway with these settings; cards are tokenized (POST /1/card) and charged (POST /1/sales/) here, kept in memory:',
      ...Object.entries(settings).map(([k, v]) => `${k}=${v}`),
      `see a token: curl --cacert ${caFile} -H 'MerchantId: ${acquirer.merchantId}' -H 'MerchantKey: ${acquirer.merchantKey}' ${url}/1/card/<CardToken>`,
      '',
    ].join('\n'),
  );
  return acquirer;
}

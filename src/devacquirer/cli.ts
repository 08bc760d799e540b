import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DevAcquirer } from './server.js';

export const DEV_ACQUIRER_USAGE =
  'gateway dev-acquirer [--port N] [--notification-url URL] [--notification-secret S]';

/** The options of `gateway dev-acquirer`, or an error message for bad usage. */
export function devAcquirerOptions(
  argv: readonly string[],
): { port: number; notificationUrl?: string; notificationSecret?: string } | string {
  const values = new Map<string, string>();
  const args = argv[0] === 'dev-acquirer' ? argv.slice(1) : argv;
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i]!, args[i + 1]];
    if (!['--port', '--notification-url', '--notification-secret'].includes(flag) || value === undefined) {
      return `usage: ${DEV_ACQUIRER_USAGE}`;
    }
    values.set(flag, value);
  }
  const port = values.has('--port') ? Number(values.get('--port')) : 8444;
  if (!Number.isInteger(port) || port < 0 || port > 65535) return '--port must be a port number';
  const url = values.get('--notification-url');
  if (url !== undefined && !/^https?:\/\//.test(url)) return '--notification-url must be an http(s):// URL';
  const secret = values.get('--notification-secret');
  return {
    port,
    ...(url === undefined ? {} : { notificationUrl: url }),
    ...(secret === undefined ? {} : { notificationSecret: secret }),
  };
}

/**
 * `gateway dev-acquirer`: starts the local Cielo-like acquirer with fresh merchant credentials, writes the CA of
 * its certificate to DATA_DIR/dev-acquirer/ca.pem (as dev-psp keeps its own under DATA_DIR/dev-psp: nothing left
 * in the system's temporary folder when it stops) and prints the settings that point a gateway at it. Runs until
 * stopped.
 */
export async function runDevAcquirer(argv: string[], dataDir: string): Promise<DevAcquirer> {
  const options = devAcquirerOptions(argv);
  if (typeof options === 'string') throw new Error(options);
  const acquirer = new DevAcquirer(options);
  const url = await acquirer.start();
  // the CA of its certificate, generated at start: the gateway trusts it for this acquirer only
  const dir = path.join(dataDir, 'dev-acquirer');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = path.join(dir, 'ca.pem');
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
      `open a chargeback on a captured payment (its notice goes to ${acquirer.notificationUrl ?? 'nowhere: start with --notification-url <gateway>/api/providers/cielo/notifications'}):`,
      `  curl --cacert ${caFile} -H 'content-type: application/json' -d '{"paymentId":"<PaymentId>","amountCents":1000,"reasonCode":"4837","reasonMessage":"No Cardholder Authorization"}' ${url}/_dev/chargebacks`,
      '',
    ].join('\n'),
  );
  return acquirer;
}

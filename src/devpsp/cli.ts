import path from 'node:path';
import { DevPsp } from './server.js';
import { gatewaySettingsFor } from './settings.js';

/**
 * `gateway dev-psp [--port N]`: starts the local PSP, writes its generated certificates under
 * DATA_DIR/dev-psp and prints the settings that point a gateway at it. Runs until stopped.
 */
export async function runDevPsp(argv: string[], dataDir: string): Promise<DevPsp> {
  const portIndex = argv.indexOf('--port');
  const port = portIndex >= 0 ? Number(argv[portIndex + 1]) : 8443;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be a port number');
  // withdrawals sent through it, and refunds asked of it, complete by themselves after two seconds, as banks would
  const psp = new DevPsp({ port, settleSendsAfterMs: 2000, settleRefundsAfterMs: 2000 });
  const url = await psp.start();
  const dir = path.join(dataDir, 'dev-psp');
  const settings = { ...gatewaySettingsFor(psp, url, dir), PAYOUT_PROVIDER: 'efi' };
  const lines = Object.entries(settings).map(([k, v]) => `${k}=${v}`);
  process.stdout.write(
    [
      `local PSP listening on ${url} (mutual TLS; certificates in ${dir})`,
      'start the gateway with these settings (and PUBLIC_URL=http://127.0.0.1:<its port>);',
      'charges go through its standard API Pix, withdrawals through its Efí-style send API;',
      'withdrawals and refunds complete by themselves 2 s after they are asked:',
      ...lines,
      `pay a charge: curl --cert ${settings.PIX_CERT} --key ${settings.PIX_KEY} --cacert ${settings.PIX_CA} \\`,
      `  -X POST ${url}/dev/cob/<externalTransactionId>/pay`,
      '    ({"amountCents": N} pays another amount; {"webhook": false} pays without telling the gateway: a lost webhook)',
      `  a boleto's Pix (boleto híbrido), same options: -X POST ${url}/dev/cobv/<externalTransactionId>/pay`,
      '    (its amount as of today; {"amountCents": N} pays another amount, {"again": true} pays it a second time)',
      'Pix Automático (with PIX_AUTOMATICO_ACCOUNT=<account id> on the gateway), same certificate options:',
      `  create a mandate:  POST ${url}/dev/rec  {"contrato": "C-1", "amountCents": 4990, "devedor": {"cpf": "<the customer's>", "nome": "…"}}`,
      `  the payer approves: POST ${url}/dev/rec/<idRec>/approve`,
      `  a cycle is paid:    POST ${url}/dev/rec/<idRec>/cycles`,
      `  a PIX subscription's cycle (with PIX_AUTOMATICO_CONTA set): POST ${url}/dev/cobr/<txid>/debit | /reject`,
      "a MED (the payer's bank reports fraud; the gateway's worker reads Efí's GET /v2/gn/infracoes as it starts and every 10 minutes):",
      `  open one:  POST ${url}/dev/infracoes  {"endToEndId": "<e2eid of a paid charge>", "razao": "golpe"}`,
      `  close it:  POST ${url}/dev/infracoes/<idInfracao>/status  {"status": "ACEITA" | "REJEITADA"}`,
      '',
    ].join('\n'),
  );
  return psp;
}

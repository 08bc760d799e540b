import { spawn } from 'node:child_process';
import path from 'node:path';

const PYTHON = process.env.PYTHON || 'python3';
const SDK = path.resolve(import.meta.dirname, '../../sdk-python');

/** A delivery to verify: its raw body, its headers as received and the webhook's secret. */
export interface DeliveryToVerify {
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
  secret: string;
}

/** What the Python SDK's verify_webhook made of a delivery: its event id and type, or the error it raised. */
export type PythonVerdict = { eventId: string; eventType: string | null } | { error: string };

const SCRIPT = `
import base64, json, sys
from gateway_sdk import WebhookVerificationError, verify_webhook
out = []
for d in json.load(sys.stdin):
    try:
        e = verify_webhook(body=base64.b64decode(d["body"]), headers=d["headers"], secret=d["secret"])
        out.append({"eventId": e.event_id, "eventType": e.event_type})
    except WebhookVerificationError as err:
        out.append({"error": str(err)})
print(json.dumps(out))
`;

/** Runs the Python SDK (sdk-python/, PYTHON or python3) on the deliveries, in order, in one process. */
export function verifyWithPython(deliveries: DeliveryToVerify[]): Promise<PythonVerdict[]> {
  const input = JSON.stringify(
    deliveries.map((d) => ({
      body: d.body.toString('base64'),
      headers: Object.fromEntries(Object.entries(d.headers).filter(([, v]) => v !== undefined)),
      secret: d.secret,
    })),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-c', SCRIPT], {
      cwd: SDK,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${PYTHON} exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as PythonVerdict[]);
    });
    child.stdin.end(input);
  });
}

import { UsageError } from '../../platform/cli/command.js';

/** Where a command for integrators finds the gateway and the key pair (flags first, then the environment). */
export interface Target {
  url: string;
  publicKey: string;
  privateKey: string;
}

export function targetOf(values: Record<string, string | boolean | undefined>, env = process.env): Target {
  const pick = (flag: string, name: string) => {
    const v = values[flag];
    return typeof v === 'string' && v !== '' ? v : env[name];
  };
  const publicKey = pick('public-key', 'GATEWAY_PUBLIC_KEY');
  const privateKey = pick('private-key', 'GATEWAY_PRIVATE_KEY');
  if (!publicKey || !privateKey) {
    throw new UsageError(
      'a key pair is needed: GATEWAY_PUBLIC_KEY and GATEWAY_PRIVATE_KEY, or --public-key and --private-key',
    );
  }
  const url = (pick('url', 'GATEWAY_URL') ?? 'http://localhost:3000').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(url)) throw new UsageError(`--url must be an http(s) origin, got "${url}"`);
  return { url, publicKey, privateKey };
}

export const TARGET_OPTIONS = {
  url: { type: 'string' },
  'public-key': { type: 'string' },
  'private-key': { type: 'string' },
} as const;

export const TARGET_HELP = {
  url: "the gateway's origin (default GATEWAY_URL, else http://localhost:3000)",
  'public-key': 'the public key (default GATEWAY_PUBLIC_KEY)',
  'private-key': 'the private key (default GATEWAY_PRIVATE_KEY)',
};

export function keyHeaders(target: Target): Record<string, string> {
  return { 'x-api-public-key': target.publicKey, 'x-api-private-key': target.privateKey };
}

/** One call to the gateway's API; a non-2xx answer throws with the gateway's own message. */
export async function api<T>(
  target: Target,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${target.url}${path}`, {
      method,
      headers: {
        ...keyHeaders(target),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new Error(`cannot reach the gateway at ${target.url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  if (!res.ok) {
    const b = (parsed ?? {}) as { message?: string; error?: { message?: string } | string };
    const message = typeof b.error === 'object' ? b.error?.message : b.message;
    throw new Error(`${method} ${path} answered ${res.status}${message ? `: ${message}` : ''}`);
  }
  return parsed as T;
}

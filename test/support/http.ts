import { Agent, request } from 'undici';

export interface Response<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** Bind the client socket to this local address (e.g. 127.0.0.2) to test IP allow-lists. */
  localAddress?: string;
  /** Trust only this CA (PEM) for an https URL: a local dev server's. */
  ca?: string;
}

const agents = new Map<string, Agent>();

function agentFor(localAddress: string | undefined, ca?: string): Agent | undefined {
  if (!localAddress && !ca) return undefined;
  const key = `${localAddress ?? ''}|${ca ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    // localAddress is a Client option; inside `connect` it is ignored
    agent = new Agent({ ...(localAddress ? { localAddress } : {}), ...(ca ? { connect: { ca } } : {}) });
    agents.set(key, agent);
  }
  return agent;
}

export async function call<T = unknown>(
  method: string,
  url: string,
  options: CallOptions = {},
): Promise<Response<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined;
  if (options.body !== undefined) {
    body =
      typeof options.body === 'string' || Buffer.isBuffer(options.body)
        ? options.body
        : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(url, {
    method: method as 'GET',
    headers,
    body,
    dispatcher: agentFor(options.localAddress, options.ca),
  });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.statusCode, headers: res.headers, body: parsed as T, text };
}

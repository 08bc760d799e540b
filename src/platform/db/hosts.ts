import { parse } from 'pg-connection-string';

/**
 * A connection string in libpq's multi-host form (`postgres://u:p@h1:5432,h2:5433/db`), which `pg` does not
 * parse: its hosts, the settings common to all of them (as `pg` reads them from a one-host string), and the
 * kind of server wanted (libpq's `target_session_attrs`).
 */
export interface HostList {
  hosts: HostAddress[];
  /** Everything but host and port, for `new pg.Client({ ...settings, host, port })`. */
  settings: Record<string, unknown>;
  attrs: SessionAttrs;
}

export interface HostAddress {
  host: string;
  port: number;
}

/** libpq's target_session_attrs values. */
export const SESSION_ATTRS = [
  'any',
  'read-write',
  'read-only',
  'primary',
  'standby',
  'prefer-standby',
] as const;
export type SessionAttrs = (typeof SESSION_ATTRS)[number];

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;

export function parseHostList(url: string, fallbackAttrs: SessionAttrs): HostList {
  const parts = URL_PARTS.exec(url);
  if (!parts) throw new Error('not a postgres:// or postgresql:// connection string');
  const [, scheme, userinfo = '', authority = '', rest = ''] = parts;
  const entries = authority.split(',').map(splitHostPort);
  const first = entries[0]!;
  // the string pg can read: one host, the query without the parameter pg does not know
  const query = new URLSearchParams(rest.includes('?') ? rest.slice(rest.indexOf('?') + 1) : '');
  const wanted = query.get('target_session_attrs') ?? fallbackAttrs;
  if (!(SESSION_ATTRS as readonly string[]).includes(wanted)) {
    throw new Error(`target_session_attrs must be one of ${SESSION_ATTRS.join(', ')}, got "${wanted}"`);
  }
  const hostText = first.host.includes(':') ? `[${first.host}]` : first.host;
  const single = `${scheme}${userinfo}${hostText || 'localhost'}${first.port ? `:${first.port}` : ''}${rest}`;
  const parsed = parse(single) as Record<string, unknown>;
  const defaultPort = parsed.port ? Number(parsed.port) : 5432;
  const { host: _host, port: _port, target_session_attrs: _attrs, ...settings } = parsed;
  // one host: exactly what pg reads from the string (a `?host=/socket/dir` included)
  const one = entries.length === 1 && typeof parsed.host === 'string' && parsed.host !== '';
  return {
    hosts: one
      ? [{ host: parsed.host as string, port: defaultPort }]
      : entries.map((e) => ({ host: e.host || 'localhost', port: e.port ?? defaultPort })),
    settings,
    attrs: wanted as SessionAttrs,
  };
}

function splitHostPort(entry: string): { host: string; port: number | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const plain = /^([^:[\]]*)(?::(\d+))?$/.exec(entry);
  const m = bracketed ?? plain;
  if (!m) throw new Error(`bad host in connection string: "${entry}"`);
  return { host: decodeURIComponent(m[1]!), port: m[2] ? Number(m[2]) : undefined };
}

export const describeHost = (h: HostAddress): string =>
  `${h.host.includes(':') ? `[${h.host}]` : h.host}:${h.port}`;

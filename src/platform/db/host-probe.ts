import pg from 'pg';
import type { HostAddress, HostList, SessionAttrs } from './hosts.js';

/**
 * One probe's limit, to connect and again to answer: a host that does not answer in this time is skipped for
 * this round. The answer's own limit is for a pooler: PgBouncer whose server has just gone logs the probe in
 * and holds its query in its queue (up to its query_wait_timeout, 30 s), and a search round waits for its
 * every probe.
 */
export const PROBE_TIMEOUT_MS = 2_000;

/** What a host is: libpq's `target_session_attrs` checks read these two. */
export const HOST_STATE =
  "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only";

export interface Probe {
  host: HostAddress;
  standby: boolean;
  readOnly: boolean;
}

/** A connection of its own to one host, for probes and the heartbeat (not pooled). */
export function probeClient(list: HostList, host: HostAddress, applicationName: string): pg.Client {
  const client = new pg.Client({
    ...list.settings,
    host: host.host,
    port: host.port,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
    application_name: applicationName,
  });
  client.on('error', () => undefined);
  return client;
}

export async function readState(client: pg.Client, host: HostAddress): Promise<Probe> {
  const { rows } = await client.query<{ standby: boolean; read_only: boolean }>(HOST_STATE);
  return { host, standby: rows[0]!.standby, readOnly: rows[0]!.read_only };
}

export function fits(p: Probe, attrs: SessionAttrs): boolean {
  switch (attrs) {
    case 'read-write':
      return !p.readOnly;
    case 'read-only':
      return p.readOnly;
    case 'primary':
      return !p.standby;
    case 'standby':
      return p.standby;
    case 'any':
    case 'prefer-standby':
      return true;
  }
}

/** The current host if it fits, else the first that does in the string's order (standbys first if preferred). */
export function pick(probes: Probe[], attrs: SessionAttrs, current: HostAddress): HostAddress | null {
  let fitting = probes.filter((p) => fits(p, attrs));
  if (attrs === 'prefer-standby' && fitting.some((p) => p.standby))
    fitting = fitting.filter((p) => p.standby);
  return (fitting.find((p) => p.host === current) ?? fitting[0])?.host ?? null;
}

/** Cuts a client's socket at once: its statements fail ("Connection terminated"), its pool drops it. */
export function destroyClient(client: pg.Client): void {
  (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
}

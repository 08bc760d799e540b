import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { PG_BIN, postgresOwnedDir, removeDir } from './pg-cluster.js';
import { freePort } from './ports.js';
import { waitUntil } from './wait.js';

/**
 * A PostgreSQL 15 cluster run by Patroni (Debian's `patroni`) on etcd (Debian's `etcd-server`), from the
 * repository's own configuration (deploy/patroni/patroni.yml) filled in per node, every process on this
 * machine on free ports in one folder: etcd as root, Patroni (and the PostgreSQL it runs) as `postgres`.
 * A node "dies" as a host would: its Patroni and its PostgreSQL SIGKILLed together.
 */
const TEMPLATE = path.resolve(import.meta.dirname, '../../deploy/patroni/patroni.yml');
const run = promisify(execFile);

export const SUPERUSER_PASSWORD = 'ha-superuser-password';

/** The timing of the DCS config (deploy/patroni/patroni.yml): ttl ≥ loop_wait + 2 × retry_timeout. */
export const TIMING = { ttl: 10, loopWait: 2, retryTimeout: 4 };

export interface Member {
  name: string;
  role: string; // leader, sync_standby, replica
  state: string; // running, streaming, stopped, …
  timeline?: number;
  lag?: number | string;
}

export class PatroniNode {
  process: ChildProcess | undefined;
  private logText = '';

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly pgPort: number,
    readonly restPort: number,
  ) {}

  get host(): string {
    return `127.0.0.1:${this.pgPort}`;
  }

  get config(): string {
    return path.join(this.dir, 'patroni.yml');
  }

  get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /** Everything this node's Patroni logged, across its restarts. */
  log(): string {
    return this.logText;
  }

  start(): void {
    const child = spawn('runuser', ['-u', 'postgres', '--', '/usr/bin/patroni', this.config], {
      cwd: this.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const append = (d: Buffer) => {
      this.logText += d.toString();
    };
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    this.process = child;
  }

  /** The pids of this node's Patroni (runuser and python) and of its PostgreSQL (postmaster and children). */
  private pids(): number[] {
    const pids: number[] = [];
    const runuser = this.process?.pid;
    const all = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
    const parentOf = (p: string) => {
      try {
        return Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      } catch {
        return -1;
      }
    };
    if (runuser) {
      pids.push(runuser, ...all.filter((p) => parentOf(p) === runuser).map(Number));
    }
    let postmaster: number | undefined;
    try {
      postmaster = Number(readFileSync(path.join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      postmaster = undefined;
    }
    if (postmaster) {
      pids.push(postmaster, ...all.filter((p) => parentOf(p) === postmaster).map(Number));
    }
    return pids;
  }

  /** The host dies: Patroni and every PostgreSQL process of this node SIGKILLed at once. */
  kill(): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  /** Stops Patroni with SIGTERM (it stops its PostgreSQL), SIGKILL after 20 s. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const python = this.pids().filter((p) => p !== child.pid);
    for (const pid of python.slice(0, 1)) process.kill(pid, 'SIGTERM');
    child.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), 20_000);
    await exited;
    clearTimeout(timer);
    this.kill(); // a PostgreSQL it left behind
  }

  /**
   * A statement on this node's PostgreSQL (a superuser connection of its own), or null when it is down, or
   * when `primaryOnly` and it is a standby (a check must not read a standby that has not replayed yet).
   */
  async query<T = Record<string, unknown>>(
    sql: string,
    database = 'postgres',
    params: unknown[] = [],
    primaryOnly = false,
  ): Promise<T[] | null> {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: this.pgPort,
      user: 'postgres',
      password: SUPERUSER_PASSWORD,
      database,
      connectionTimeoutMillis: 1_000,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      if (primaryOnly) {
        const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
        if (rows[0]!.standby) return null;
      }
      return (await client.query(sql, params)).rows as T[];
    } catch {
      return null;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

export interface PatroniCluster {
  nodes: PatroniNode[];
  etcdMembers: number;
  /** libpq's multi-host form naming every node, as the gateway's DATABASE_URL. */
  url(database: string): string;
  /** `patronictl list` as JSON. */
  members(): Promise<Member[]>;
  leader(): Promise<PatroniNode | undefined>;
  /** `patronictl …` with the first node's configuration, killed after `timeoutMs` (30 s). */
  ctl(args: string[], timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** etcd: one member, or three (a quorum of two), on free ports; data in `root`. */
async function startEtcd(root: string, members: number): Promise<{ hosts: string[]; procs: ChildProcess[] }> {
  const ports = await Promise.all(
    Array.from({ length: members }, async () => ({ client: await freePort(), peer: await freePort() })),
  );
  const initial = ports.map((p, i) => `etcd${i}=http://127.0.0.1:${p.peer}`).join(',');
  const procs = ports.map((p, i) => {
    const dir = path.join(root, `etcd${i}`);
    mkdirSync(dir, { recursive: true });
    const child = spawn(
      '/usr/bin/etcd',
      [
        `--name=etcd${i}`,
        `--data-dir=${dir}`,
        `--listen-client-urls=http://127.0.0.1:${p.client}`,
        `--advertise-client-urls=http://127.0.0.1:${p.client}`,
        `--listen-peer-urls=http://127.0.0.1:${p.peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${p.peer}`,
        `--initial-cluster=${initial}`,
        '--initial-cluster-state=new',
        '--initial-cluster-token=gateway-ha-test',
        '--log-level=error',
      ],
      { stdio: 'ignore' },
    );
    return child;
  });
  const hosts = ports.map((p) => `127.0.0.1:${p.client}`);
  await waitUntil(
    async () => {
      const ok = await Promise.all(
        hosts.map((h) =>
          fetch(`http://${h}/health`)
            .then((r) => r.json() as Promise<{ health: string }>)
            .then((b) => b.health === 'true')
            .catch(() => false),
        ),
      );
      return ok.every(Boolean);
    },
    30_000,
    () => 'etcd healthy',
  );
  return { hosts, procs };
}

interface ClusterOptions {
  nodes: number;
  etcdMembers: number;
  maxConnections?: number;
}

/**
 * Patroni's write of the initialize key timed out (etcd slow to answer on a busy machine) but was made:
 * Patroni then takes it for another node's and waits for that node to bootstrap, for ever.
 */
class InitializeLockLost extends Error {}

/**
 * A cluster of `nodes` Patroni nodes; returns once one leads and every other streams from it. Made again
 * from nothing once if the first node lost its own initialize key (InitializeLockLost).
 */
export async function startPatroniCluster(opts: ClusterOptions): Promise<PatroniCluster> {
  try {
    return await startCluster(opts);
  } catch (err) {
    if (!(err instanceof InitializeLockLost)) throw err;
    return startCluster(opts);
  }
}

async function startCluster(opts: ClusterOptions): Promise<PatroniCluster> {
  const root = postgresOwnedDir('gw-patroni-');
  const etcd = await startEtcd(root, opts.etcdMembers);
  const template = readFileSync(TEMPLATE, 'utf8');
  const nodes: PatroniNode[] = [];
  for (let i = 0; i < opts.nodes; i++) {
    const dir = path.join(root, `node${i + 1}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const node = new PatroniNode(`node${i + 1}`, dir, await freePort(), await freePort());
    const values: Record<string, string> = {
      NAME: node.name,
      HOST: '127.0.0.1',
      REST_PORT: String(node.restPort),
      PG_PORT: String(node.pgPort),
      ETCD_HOSTS: etcd.hosts.join(','),
      TTL: String(TIMING.ttl),
      LOOP_WAIT: String(TIMING.loopWait),
      RETRY_TIMEOUT: String(TIMING.retryTimeout),
      MAX_CONNECTIONS: String(opts.maxConnections ?? 200),
      SHARED_BUFFERS: '32MB',
      REPLICATION_USER: 'replicator',
      REPLICATION_PASSWORD: 'ha-replication-password',
      SUPERUSER_PASSWORD,
      CLIENTS: '127.0.0.1/32',
      AUTH_METHOD: 'scram-sha-256',
      DATA_DIR: node.dataDir,
      BIN_DIR: PG_BIN,
      DIR: dir,
    };
    const yml = template.replace(/@([A-Z_]+)@/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`patroni.yml: no value for @${name}@`);
      return value;
    });
    writeFileSync(node.config, yml);
    nodes.push(node);
  }
  let cluster: PatroniCluster;
  let last = '';
  const stopAll = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    for (const p of etcd.procs) p.kill('SIGTERM');
    await Promise.all(
      etcd.procs.map((p) => (p.exitCode !== null ? undefined : new Promise((r) => p.once('exit', r)))),
    );
    removeDir(root);
  };
  try {
    await run('chown', ['-R', 'postgres:postgres', root]);
    // the first bootstraps the cluster; the others clone it (pg_basebackup) once it leads
    nodes[0]!.start();
    await waitUntil(
      async () => {
        if (nodes[0]!.log().includes('failed to acquire initialize lock'))
          throw new InitializeLockLost(`node1 lost its initialize key:\n${nodes[0]!.log()}`);
        return (await nodes[0]!.query('SELECT 1')) !== null && isPrimaryRole(await restRole(nodes[0]!));
      },
      60_000,
      () => `node1 bootstrapped:\n${nodes[0]!.log()}`,
    );
    for (const node of nodes.slice(1)) node.start();

    const ctl = async (args: string[], timeoutMs = 30_000): Promise<string> => {
      try {
        const { stdout } = await run('/usr/bin/patronictl', ['-c', nodes[0]!.config, ...args], {
          cwd: '/tmp',
          timeout: timeoutMs,
        });
        return stdout;
      } catch (err) {
        const e = err as Error & { killed?: boolean; stdout?: string; stderr?: string };
        throw new Error(
          `patronictl ${args.join(' ')} ${e.killed ? `killed after ${timeoutMs} ms` : 'failed'}: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`,
        );
      }
    };
    const members = async (): Promise<Member[]> => {
      const out = await ctl(['list', '-f', 'json']);
      return (JSON.parse(out) as Record<string, unknown>[]).map((m) => ({
        name: String(m.Member),
        role: String(m.Role).toLowerCase().replace(/ /g, '_'),
        state: String(m.State),
        timeline: m.TL as number | undefined,
        lag: m['Lag in MB'] as number | string | undefined,
      }));
    };
    cluster = {
      nodes,
      etcdMembers: opts.etcdMembers,
      url: (database) =>
        `postgres://postgres:${SUPERUSER_PASSWORD}@${nodes.map((n) => n.host).join(',')}/${database}`,
      members,
      leader: async () => {
        const list = await members();
        const name = list.find((m) => m.role === 'leader')?.name;
        return nodes.find((n) => n.name === name);
      },
      ctl,
      stop: stopAll,
    };
    await waitUntil(
      async () => {
        const list = await members().catch((e: unknown) => {
          last = String(e).slice(0, 500);
          return [];
        });
        last = JSON.stringify(list);
        return (
          list.length === opts.nodes &&
          list.filter((m) => m.role === 'leader' && m.state === 'running').length === 1 &&
          list.filter((m) => m.role === 'sync_standby').length === 1 &&
          list.every((m) => m.state === 'running' || m.state === 'streaming')
        );
      },
      120_000,
      () => `every node streaming: ${last}\n${nodes.map((n) => n.log().slice(-2000)).join('\n')}`,
    );
  } catch (err) {
    await stopAll();
    throw err;
  }
  return cluster;
}

/** Patroni 3.0 calls its leader's PostgreSQL `master`, later versions `primary`. */
export const isPrimaryRole = (role: string | undefined) => role === 'master' || role === 'primary';

/** What a node's REST API says it is (`GET /` → role), or undefined when it does not answer. */
export async function restRole(node: PatroniNode): Promise<string | undefined> {
  try {
    const r = await fetch(`http://127.0.0.1:${node.restPort}/`, { signal: AbortSignal.timeout(1_000) });
    return ((await r.json()) as { role?: string }).role;
  } catch {
    return undefined;
  }
}

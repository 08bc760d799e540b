import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/platform/embedded-postgres/start.js';

export interface EmbeddedServer {
  dataDir: string;
  url: string;
  stop(): Promise<void>;
}

/** A real embedded PostgreSQL (the gateway's default) in a fresh DATA_DIR, removed by stop(). */
export async function startEmbedded(): Promise<EmbeddedServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-emb-'));
  const server = await startEmbeddedPostgres(dataDir, () => undefined);
  server.releaseStartLock();
  return {
    dataDir,
    url: server.url,
    stop: async () => {
      await server.stopIfUnused();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

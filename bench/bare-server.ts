/**
 * The read baseline, in a process of its own: a bare Fastify 5 app, logger off, one `pg` Pool of 10,
 * `GET /select1` running SELECT 1. Nothing of the gateway (hooks, auth, metrics) is loaded here.
 */
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });
app.get('/select1', async () => {
  await pool.query('SELECT 1');
  return { ok: true };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`BARE_SERVER ${url}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end());
});

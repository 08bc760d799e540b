/**
 * The read baselines, in a process of its own: a bare Fastify 5 app, logger off, one `pg` Pool of 10,
 * `GET /select1` running SELECT 1, and `GET /json` answering a small JSON object with no database at all (the
 * ceiling of the HTTP layer: no read can cost less). Nothing of the gateway (hooks, auth, metrics) is loaded here.
 */
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });
app.get('/select1', async () => {
  await pool.query('SELECT 1');
  return { ok: true };
});
app.get('/json', async () => ({ available: 0, pending: 0, reserved: 0 }));
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`BARE_SERVER ${url}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end());
});
// ends with the bench that started it: a bench killed from outside (its IPC channel closed) leaves no server
// holding the database's connections
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

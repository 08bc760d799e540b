import { randomBytes, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { request as httpRequest } from 'undici';
import { brCode } from '../payment-standards/index.js';
import { type DevCertificates, generateCertificates } from '../platform/crypto/dev-certificates.js';
import { formatReais, parseReais } from '../platform/money/money.js';
import { CobvPsp } from './cobv.js';
import { Infracoes } from './infracoes.js';
import { pixView, receivedPage } from './received-pages.js';
import { RecurringPsp } from './recurring.js';
import { type Cob, newEndToEndId, type PixSend, PspState, type ReceivedPix } from './state.js';

export interface DevPspOptions {
  clientId?: string;
  clientSecret?: string;
  /** Lifetime of issued tokens, seconds. */
  tokenTtlSeconds?: number;
  /** Sends (payouts) complete by themselves this long after they are made; unset: only when told (`settleSend`). */
  settleSendsAfterMs?: number;
  /** Refunds (devoluções) are DEVOLVIDO this long after they are asked, webhook included; unset: `settleRefund`. */
  settleRefundsAfterMs?: number;
  host?: string;
  port?: number;
}

/**
 * A fault the next matching request meets: a status answered (with a problem+json body, or `html`, as a proxy in
 * front of a PSP answers), or no answer at all.
 */
type Fault = { status: number; html?: string } | { hang: true };

/**
 * A local PSP speaking the Central Bank's standard API Pix over mutual TLS (client certificate required),
 * with an OAuth 2 client-credentials token endpoint. Test and try-out tool: `pay` settles a charge as a
 * payer's bank would and calls the registered webhook.
 */
export class DevPsp {
  readonly state = new PspState();
  /** Pix Automático: mandates and their cycles, approved and paid on request. */
  readonly recurring = new RecurringPsp(this.state);
  /** Charges with due date (boletos híbridos). */
  readonly cobv = new CobvPsp(this.state, (chave, pix) => this.notify(chave, pix));
  /** Efí's MED infractions (GET /v2/gn/infracoes): the MED notices the gateway reads. */
  readonly infracoes = new Infracoes();
  readonly certs: DevCertificates;
  readonly clientId: string;
  readonly clientSecret: string;
  url = '';
  private readonly faults = new Map<string, { fault: Fault; left: number; after: number }>();
  /** The next send is recorded (the money leaves) but its answer never comes: a lost response. */
  private loseNextSendAnswer = false;
  private cobTamper: ((answer: Record<string, unknown>) => Record<string, unknown>) | null = null;
  private readonly app: FastifyInstance;
  private readonly ttl: number;

  constructor(private readonly options: DevPspOptions = {}) {
    this.certs = generateCertificates();
    this.clientId = options.clientId ?? 'gateway';
    this.clientSecret = options.clientSecret ?? randomBytes(16).toString('hex');
    this.ttl = options.tokenTtlSeconds ?? 3600;
    this.app = Fastify({
      https: {
        key: this.certs.serverKey,
        cert: this.certs.serverCert,
        ca: this.certs.ca,
        requestCert: true,
        rejectUnauthorized: true,
      },
    });
    this.routes();
  }

  async start(): Promise<string> {
    await this.app.listen({ host: this.options.host ?? '127.0.0.1', port: this.options.port ?? 0 });
    const address = this.app.server.address() as { port: number };
    this.url = `https://${this.options.host ?? '127.0.0.1'}:${address.port}`;
    return this.url;
  }

  async close(): Promise<void> {
    await this.app.close();
  }

  /**
   * The next `times` requests whose "METHOD /first-segment" matches (e.g. "PUT /cob") meet this fault, once
   * `after` more of them were answered normally.
   */
  failNext(route: string, fault: Fault, times = 1, after = 0): void {
    this.faults.set(route, { fault, left: times, after });
  }

  /** The next `PUT /cob` answer is passed through this first (a PSP answering something wrong). */
  tamperNextCob(change: (answer: Record<string, unknown>) => Record<string, unknown>): void {
    this.cobTamper = change;
  }

  /** The next payout send is made but not answered (the client times out without knowing it was sent). */
  loseNextSendResponse(): void {
    this.loseNextSendAnswer = true;
  }

  /** A payout send reaches its final status (as the receiving bank settles it). */
  settleSend(idEnvio: string, status: 'REALIZADO' | 'NAO_REALIZADO'): void {
    const send = this.state.sends.get(idEnvio);
    if (!send) throw new Error(`no send ${idEnvio}`);
    send.status = status;
    send.horario.liquidacao = new Date().toISOString();
  }

  /** Every token issued so far stops being accepted (as when it expires). */
  expireTokens(): void {
    this.state.tokens.clear();
  }

  /** A payer pays a charge (the charge's amount unless told otherwise); the webhook is called `times` times. */
  async pay(txid: string, options: { amountCents?: number; times?: number } = {}): Promise<ReceivedPix> {
    const cob = this.state.cobs.get(txid);
    if (!cob) throw new Error(`no charge ${txid}`);
    if (cob.status !== 'ATIVA') throw new Error(`charge ${txid} is ${cob.status}`);
    const pix: ReceivedPix = {
      endToEndId: newEndToEndId('E'),
      txid,
      valor: options.amountCents === undefined ? cob.valor : formatReais(options.amountCents),
      horario: new Date().toISOString(),
      devolucoes: [],
    };
    this.state.pix.set(pix.endToEndId, pix);
    cob.status = 'CONCLUIDA';
    for (let i = 0; i < (options.times ?? 1); i++) await this.notify(cob.chave, [pix]);
    return pix;
  }

  /** Pix for a txid this PSP never issued a charge for (webhook only: nothing to read back). */
  async notifyUnknown(chave: string, txid: string): Promise<void> {
    await this.notify(chave, [
      {
        endToEndId: newEndToEndId('E'),
        txid,
        valor: '1.00',
        horario: new Date().toISOString(),
        devolucoes: [],
      },
    ]);
  }

  /** A Pix to the receiver key that pays no charge (no txid), as a payer typing the key in their bank's app. */
  async receiveWithoutCharge(chave: string, amountCents: number): Promise<ReceivedPix> {
    const pix: ReceivedPix = {
      endToEndId: newEndToEndId('E'),
      valor: formatReais(amountCents),
      horario: new Date().toISOString(),
      devolucoes: [],
    };
    this.state.pix.set(pix.endToEndId, pix);
    await this.notify(chave, [pix]);
    return pix;
  }

  /** A devolução made from the PSP's own console: DEVOLVIDO at once, and no webhook tells the gateway. */
  refundAtConsole(e2eid: string, amountCents?: number): void {
    const pix = this.state.pix.get(e2eid);
    if (!pix) throw new Error(`no Pix ${e2eid}`);
    const now = new Date().toISOString();
    pix.devolucoes.push({
      id: `C${randomBytes(8).toString('hex')}`,
      rtrId: newEndToEndId('D'),
      valor: amountCents === undefined ? pix.valor : formatReais(amountCents),
      horario: { solicitacao: now, liquidacao: now },
      status: 'DEVOLVIDO',
    });
  }

  /** A pending refund reaches its final status; the webhook is called with the Pix (unless `notify` is false). */
  async settleRefund(
    e2eid: string,
    id: string,
    status: 'DEVOLVIDO' | 'NAO_REALIZADO',
    options: { notify?: boolean } = {},
  ): Promise<void> {
    const pix = this.state.pix.get(e2eid)!;
    const dev = pix.devolucoes.find((d) => d.id === id)!;
    dev.status = status;
    dev.horario.liquidacao = new Date().toISOString();
    if (options.notify === false) return;
    // a cycle's Pix (Pix Automático) is reported through its charge's callback, others through the Pix one
    const cobr = this.recurring.cobrs.get(pix.txid ?? '');
    if (cobr) await this.recurring.notifyCharge(cobr);
    else {
      const chave = (this.state.cobs.get(pix.txid ?? '') ?? this.cobv.cobvs.get(pix.txid ?? ''))!.chave;
      await this.notify(chave, [pix]);
    }
  }

  private async notify(chave: string, pix: ReceivedPix[]): Promise<void> {
    const url = this.state.webhooks.get(chave);
    if (!url) return;
    const res = await httpRequest(`${url}/pix`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pix: pix.map(pixView) }),
    });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`webhook answered ${res.statusCode}`);
  }

  private routes(): void {
    const app = this.app;
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    // `curl -H 'content-type: application/json' -X POST …/pay` with no body pays as `{}` would
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      const text = String(body).trim();
      if (text === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch {
        done(Object.assign(new Error('the body is not JSON'), { statusCode: 400 }), undefined);
      }
    });
    app.addHook('onRequest', async (req, reply) => {
      this.state.log.push(`${req.method} ${req.url.split('?')[0]}`);
      const route = `${req.method} /${req.url.split('?')[0]!.split('/')[1]}`;
      const pending = this.faults.get(route);
      if (pending && pending.after > 0) pending.after--;
      else if (pending) {
        if (--pending.left <= 0) this.faults.delete(route);
        const fault = pending.fault;
        if ('hang' in fault) return new Promise(() => {}); // never answers; the client gives up
        if (fault.html !== undefined) return reply.code(fault.status).type('text/html').send(fault.html);
        return reply.code(fault.status).send({ title: 'Erro simulado', status: fault.status });
      }
      // the try-out control routes (/dev/…) need only the client certificate
      if (req.url !== '/oauth/token' && !req.url.startsWith('/dev/') && !this.authorized(req)) {
        return reply.code(401).send({ title: 'Não autorizado', status: 401 });
      }
    });

    // Only requests that reached a route: injected faults and refused tokens are not the standard's answers.
    const handled = new WeakSet<FastifyRequest>();
    app.addHook('preHandler', async (req) => {
      handled.add(req);
    });
    app.addHook('onSend', async (req, reply, payload) => {
      const route = req.routeOptions.url;
      // Efí's own extension (/v2/gn, /v3/gn) is not the standard's: its exchanges are not checked against the yaml
      if (
        !route ||
        route === '/oauth/token' ||
        route.startsWith('/dev/') ||
        route.includes('/gn/') ||
        !handled.has(req)
      )
        return payload;
      this.state.exchanges.push({
        method: req.method,
        path: route.replace(/:(\w+)/g, '{$1}'),
        params: req.params as Record<string, string>,
        query: req.query as Record<string, string>,
        requestBody: req.body ?? null,
        status: reply.statusCode,
        responseBody: typeof payload === 'string' && payload ? JSON.parse(payload) : null,
      });
      return payload;
    });

    app.post('/dev/cob/:txid/pay', async (req, reply) => {
      const { txid } = req.params as { txid: string };
      if (!this.state.cobs.has(txid)) return reply.code(404).send(notFound);
      const amount = (req.body as { amountCents?: number } | undefined)?.amountCents;
      const status = this.state.cobs.get(txid)?.status;
      // a payer's bank refuses a charge no longer active (removed, or paid already): nothing is paid
      if (status !== 'ATIVA') {
        return reply
          .code(409)
          .send({ title: 'Cobrança não pagável', status: 409, detail: `charge ${txid} is ${status}` });
      }
      // `{"webhook": false}`: paid without telling the gateway (a lost webhook, for its reconciliation to find);
      // a webhook the gateway does not take (it is down) leaves the Pix paid all the same, and says so
      const pix = await this.pay(txid, {
        ...(amount === undefined ? {} : { amountCents: amount }),
        times: 0,
      });
      const webhook = (req.body as { webhook?: unknown } | undefined)?.webhook;
      if (webhook === false) return { ...pix, webhook: 'not sent ({"webhook": false})' };
      try {
        await this.notify(this.state.cobs.get(txid)!.chave, [pix]);
        return { ...pix, webhook: 'delivered' };
      } catch (err) {
        return {
          ...pix,
          webhook: `not delivered (${failure(err)}): the Pix is paid; the gateway's reconciliation finds it`,
        };
      }
    });
    app.post('/oauth/token', async (req, reply) => this.token(req, reply));
    this.infracoes.routes(app, (e2eid) => this.state.pix.get(e2eid));
    this.recurring.routes(app);
    this.cobv.routes(app, () => this.url);
    app.put('/cob/:txid', async (req, reply) => {
      const { txid } = req.params as { txid: string };
      const body = req.body as {
        calendario?: { expiracao?: number };
        valor: { original: string };
        chave: string;
      };
      const cob: Cob = {
        txid,
        valor: body.valor.original,
        chave: body.chave,
        expiracao: body.calendario?.expiracao ?? 86400,
        criacao: new Date().toISOString(),
        location: `${this.url.replace(/^https:\/\//, '')}/qr/v2/${randomBytes(16).toString('hex')}`,
        status: 'ATIVA',
      };
      this.state.cobs.set(txid, cob);
      const tamper = this.cobTamper;
      this.cobTamper = null;
      return reply.code(201).send(tamper ? tamper(cobView(cob)) : cobView(cob));
    });
    app.get('/cob/:txid', async (req, reply) => {
      const cob = this.state.cobs.get((req.params as { txid: string }).txid);
      if (!cob) return reply.code(404).send(notFound);
      const pix = [...this.state.pix.values()].filter((p) => p.txid === cob.txid).map(pixView);
      return pix.length > 0 ? { ...cobView(cob), pix } : cobView(cob);
    });
    // only the removal the gateway uses (a charge paid meanwhile cannot be removed)
    app.patch('/cob/:txid', async (req, reply) => {
      const cob = this.state.cobs.get((req.params as { txid: string }).txid);
      if (!cob) return reply.code(404).send(notFound);
      const status = (req.body as { status?: string } | undefined)?.status;
      if (status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR' || cob.status !== 'ATIVA') {
        return reply.code(400).send(invalidOperation(`cobrança ${cob.status} não pode ser revisada`));
      }
      cob.status = status;
      return cobView(cob);
    });
    app.get('/pix', async (req, reply) => {
      const page = receivedPage(this.state.pix.values(), req.query as Record<string, string | undefined>);
      if ('problem' in page) return reply.code(400).send(page.problem);
      this.state.pixPages.push(page.parametros.paginacao.paginaAtual);
      return page;
    });
    app.get('/pix/:e2eid', async (req, reply) => {
      const pix = this.state.pix.get((req.params as { e2eid: string }).e2eid);
      if (!pix) return reply.code(404).send(notFound);
      return pixView(pix);
    });
    app.put('/pix/:e2eid/devolucao/:id', async (req, reply) => {
      const { e2eid, id } = req.params as { e2eid: string; id: string };
      const pix = this.state.pix.get(e2eid);
      if (!pix) return reply.code(404).send(notFound);
      let dev = pix.devolucoes.find((d) => d.id === id);
      if (!dev) {
        // "A soma dos valores de todas as devoluções não pode ultrapassar o valor total do Pix" (PixDevolucaoInvalida)
        const asked = parseReais((req.body as { valor?: string } | null)?.valor ?? '');
        const taken = pix.devolucoes
          .filter((d) => d.status !== 'NAO_REALIZADO')
          .reduce((sum, d) => sum + (parseReais(d.valor) ?? 0), 0);
        if (asked === null || asked <= 0 || taken + asked > (parseReais(pix.valor) ?? 0)) {
          return reply.code(400).send({
            type: 'https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida',
            title: 'Devolução Inválida',
            status: 400,
            detail:
              'A presente requisição de devolução, em conjunto com as demais prévias devoluções, excederia o valor do pix originário.',
          });
        }
        const natureza = (req.body as { natureza?: unknown }).natureza;
        dev = {
          id,
          rtrId: newEndToEndId('D'),
          valor: (req.body as { valor: string }).valor,
          natureza: typeof natureza === 'string' ? natureza : 'ORIGINAL',
          horario: { solicitacao: new Date().toISOString() },
          status: 'EM_PROCESSAMENTO',
        };
        pix.devolucoes.push(dev);
        const after = this.options.settleRefundsAfterMs;
        if (after !== undefined) {
          setTimeout(
            () => void this.settleRefund(e2eid, id, 'DEVOLVIDO').catch(() => undefined),
            after,
          ).unref();
        }
      }
      return reply.code(201).send(dev);
    });
    app.get('/pix/:e2eid/devolucao/:id', async (req, reply) => {
      const { e2eid, id } = req.params as { e2eid: string; id: string };
      const dev = this.state.pix.get(e2eid)?.devolucoes.find((d) => d.id === id);
      return dev ?? reply.code(404).send(notFound);
    });
    // Efí's Pix send extension (https://dev.efipay.com.br/docs/api-pix/envio-pagamento-pix): one send per idEnvio
    app.put('/v3/gn/pix/:idEnvio', async (req, reply) => {
      const { idEnvio } = req.params as { idEnvio: string };
      const body = req.body as {
        valor?: string;
        pagador?: { chave?: string };
        favorecido?: { chave?: string };
      };
      if (!/^[a-zA-Z0-9]{1,35}$/.test(idEnvio)) return reply.code(400).send(efiError('idEnvio inválido'));
      if (this.state.sends.has(idEnvio)) return reply.code(409).send(efiError('idEnvio já utilizado'));
      if (
        !body?.valor ||
        !/^\d{1,10}\.\d{2}$/.test(body.valor) ||
        !body.pagador?.chave ||
        !body.favorecido?.chave
      ) {
        return reply.code(400).send(efiError('Requisição inválida'));
      }
      if (body.favorecido.chave === 'recusada@example.com') {
        return reply.code(400).send(efiError('Chave Pix do favorecido não encontrada'));
      }
      const send: PixSend = {
        idEnvio,
        e2eId: newEndToEndId('E'),
        valor: body.valor,
        pagador: { chave: body.pagador.chave },
        favorecido: { chave: body.favorecido.chave },
        horario: { solicitacao: new Date().toISOString() },
        status: 'EM_PROCESSAMENTO',
      };
      this.state.sends.set(idEnvio, send);
      if (this.options.settleSendsAfterMs !== undefined) {
        setTimeout(() => this.settleSend(idEnvio, 'REALIZADO'), this.options.settleSendsAfterMs).unref();
      }
      if (this.loseNextSendAnswer) {
        this.loseNextSendAnswer = false;
        return new Promise(() => {}); // sent, but the answer is lost: the client times out
      }
      return reply.code(201).send(sendView(send));
    });
    app.get('/v2/gn/pix/enviados/id-envio/:idEnvio', async (req, reply) => {
      const send = this.state.sends.get((req.params as { idEnvio: string }).idEnvio);
      if (!send) return reply.code(404).send(efiError('Pix não encontrado'));
      return sendView(send);
    });
    app.put('/webhook/:chave', async (req) => {
      this.state.webhooks.set(
        (req.params as { chave: string }).chave,
        (req.body as { webhookUrl: string }).webhookUrl,
      );
      return '';
    });
  }

  private authorized(req: FastifyRequest): boolean {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiry = token ? this.state.tokens.get(token) : undefined;
    return expiry !== undefined && expiry > Date.now();
  }

  private token(req: FastifyRequest, reply: FastifyReply) {
    // RFC 6749 §2.3.1: id and secret are form-urlencoded, then joined by ":" and base64-encoded
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const [id, secret] = formDecodedPair(Buffer.from(basic, 'base64').toString('utf8'));
    const same = (a: string | null, b: string) =>
      a !== null &&
      Buffer.byteLength(a) === Buffer.byteLength(b) &&
      timingSafeEqual(Buffer.from(a), Buffer.from(b));
    const ok = same(id, this.clientId) && same(secret, this.clientSecret);
    if (!ok || (req.body as { grant_type?: string })?.grant_type !== 'client_credentials') {
      return reply.code(401).send({ error: 'invalid_client' });
    }
    const token = randomBytes(24).toString('hex');
    this.state.tokens.set(token, Date.now() + this.ttl * 1000);
    this.state.tokensIssued++;
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: this.ttl,
      scope:
        'cob.write cob.read cobv.write cobv.read pix.read pix.write pix.send gn.pix.send.read webhook.write rec.read cobr.read webhookrec.write webhookcobr.write',
    };
  }
}

/** "id:secret" of a Basic header, each form-urlencoded; null for a part that does not decode. */
function formDecodedPair(text: string): [string | null, string | null] {
  const colon = text.indexOf(':');
  if (colon < 0) return [null, null];
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      return null;
    }
  };
  return [decode(text.slice(0, colon)), decode(text.slice(colon + 1))];
}

const notFound = {
  type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado',
  title: 'Não Encontrado',
  status: 404,
  detail: 'Entidade não encontrada.',
};

function cobView(cob: Cob) {
  return {
    calendario: { criacao: cob.criacao, expiracao: cob.expiracao },
    txid: cob.txid,
    revisao: 0,
    loc: { id: 1, txid: cob.txid, location: cob.location, tipoCob: 'cob', criacao: cob.criacao },
    location: cob.location,
    status: cob.status,
    valor: { original: cob.valor },
    chave: cob.chave,
    pixCopiaECola: brCode({
      kind: 'dynamic',
      location: cob.location,
      merchantName: 'PSP LOCAL',
      merchantCity: 'SAO PAULO',
      amountCents: parseReais(cob.valor) ?? 0,
    }),
  };
}

function invalidOperation(detail: string) {
  return {
    type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
    title: 'Cobrança inválida.',
    status: 400,
    detail,
  };
}

function efiError(mensagem: string) {
  return { nome: 'erro_envio', mensagem };
}

function sendView(send: PixSend) {
  return { ...send, horario: { ...send.horario } };
}

/** Why a webhook was not delivered, in a few words (a refused connection's code, or the answer's status). */
function failure(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  return typeof e.code === 'string' ? e.code : String(e.message ?? err);
}

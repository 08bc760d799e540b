import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { request as httpRequest } from 'undici';
import { formatReais } from '../platform/money/money.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { newEndToEndId, type PspState, type ReceivedPix } from './state.js';

/** A Pix Automático mandate (recorrência) as the local PSP keeps it. */
export interface Rec {
  idRec: string;
  status: 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
  contrato: string;
  objeto: string;
  /** The payer: a CNPJ, or a CPF. */
  devedor: { cnpj?: string; cpf?: string; nome: string };
  /** Fixed amount of every cycle ("12.34"); absent for a mandate of varying amounts. */
  valorRec?: string;
  dataInicial: string;
  jornada: 'JORNADA_1' | 'JORNADA_2' | 'JORNADA_3' | 'JORNADA_4' | 'AGUARDANDO_DEFINICAO';
  atualizacao: { status: Rec['status']; data: string }[];
}

/** A recurring charge (cobrança recorrente, `cobr`): one cycle of a mandate. */
export interface CobR {
  txid: string;
  idRec: string;
  valor: string;
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  criacao: string;
  dataDeVencimento: string;
  pix: ReceivedPix[];
  atualizacao: { status: CobR['status']; data: string }[];
  /** The receiver's account the charge named (one the receiving user scheduled). */
  recebedor?: { conta: string; tipoConta: string; agencia?: string };
  devedor?: { email?: string };
  /** The id of the debit attempt the payer's bank refused. */
  rejectedEndToEndId?: string;
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const today = () => new Date().toISOString().slice(0, 10);

/** "RN" (no retries) + ISPB + yyyyMMdd + 11 alphanumerics: 29 characters, as the standard's idRec. */
export function newIdRec(): string {
  const tail = [...randomBytes(11)].map((b) => ALNUM[b % ALNUM.length]).join('');
  return `RN99999999${today().replaceAll('-', '')}${tail}`;
}

const notFound = {
  type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado',
  title: 'Não Encontrado',
  status: 404,
  detail: 'Entidade não encontrada.',
};

/**
 * The local PSP's Pix Automático: mandates (`rec`) and their cycles (`cobr`), the webhooks registered with
 * `PUT /webhookrec` and `PUT /webhookcobr`, and on request what the payer's side does: approve a mandate and
 * pay a cycle, each followed by the standard's callback (`{webhookUrl}/rec`, `{webhookUrl}/cobr`).
 */
export class RecurringPsp {
  readonly recs = new Map<string, Rec>();
  readonly cobrs = new Map<string, CobR>();
  webhookRec: string | null = null;
  webhookCobr: string | null = null;
  /** Every callback sent, in order (tests check them against the yaml). */
  readonly callbacks: { path: '/rec' | '/cobr'; body: unknown }[] = [];

  constructor(private readonly state: PspState) {}

  /** The receiving user creates a mandate at its PSP (status CRIADA, awaiting the payer). */
  create(input: {
    contrato: string;
    amountCents?: number;
    devedor?: Rec['devedor'];
    objeto?: string;
    dataInicial?: string;
  }): Rec {
    const rec: Rec = {
      idRec: newIdRec(),
      status: 'CRIADA',
      contrato: input.contrato,
      objeto: input.objeto ?? 'Assinatura mensal',
      devedor: input.devedor ?? { cnpj: '11222333000181', nome: 'Empresa Pagadora Ltda' },
      ...(input.amountCents === undefined ? {} : { valorRec: formatReais(input.amountCents) }),
      dataInicial: input.dataInicial ?? today(),
      jornada: 'AGUARDANDO_DEFINICAO',
      atualizacao: [{ status: 'CRIADA', data: new Date().toISOString() }],
    };
    this.recs.set(rec.idRec, rec);
    return rec;
  }

  /** The payer authorizes the mandate in its bank's app (journey 2: a recurrence QR code); webhook `times` times. */
  async approve(idRec: string, options: { times?: number } = {}): Promise<Rec> {
    const rec = this.recs.get(idRec);
    if (!rec) throw new Error(`no recurrence ${idRec}`);
    rec.status = 'APROVADA';
    rec.jornada = 'JORNADA_2';
    rec.atualizacao.push({ status: 'APROVADA', data: new Date().toISOString() });
    for (let i = 0; i < (options.times ?? 1); i++) await this.notifyRec([recNotification(rec)]);
    return rec;
  }

  /**
   * A cycle is charged and the payer's bank debits it: a `cobr` of `amountCents` (the mandate's fixed amount
   * by default) CONCLUIDA with the Pix that paid `paidCents` (the charge by default); webhook `times` times.
   */
  async payCycle(
    idRec: string,
    options: { amountCents?: number; paidCents?: number; times?: number } = {},
  ): Promise<CobR> {
    const rec = this.recs.get(idRec);
    if (!rec) throw new Error(`no recurrence ${idRec}`);
    const valor = options.amountCents === undefined ? rec.valorRec : formatReais(options.amountCents);
    if (!valor) throw new Error('a mandate of varying amounts needs the cycle amount');
    const now = new Date().toISOString();
    const txid = randomBytes(16).toString('hex');
    const pix: ReceivedPix = {
      endToEndId: newEndToEndId('E'),
      txid,
      valor: options.paidCents === undefined ? valor : formatReais(options.paidCents),
      horario: now,
      devolucoes: [],
    };
    const cobr: CobR = {
      txid,
      idRec,
      valor,
      status: 'CONCLUIDA',
      criacao: today(),
      dataDeVencimento: today(),
      pix: [pix],
      atualizacao: [
        { status: 'CRIADA', data: now },
        { status: 'ATIVA', data: now },
        { status: 'CONCLUIDA', data: now },
      ],
    };
    this.cobrs.set(txid, cobr);
    this.state.pix.set(pix.endToEndId, pix); // readable at GET /pix/{e2eid}, refundable, like any Pix received
    for (let i = 0; i < (options.times ?? 1); i++) await this.notifyCharge(cobr);
    return cobr;
  }

  /**
   * The receiving user schedules a cycle (PUT /cobr/{txid}): checked as the standard's CobROperacaoInvalida
   * lists (an approved mandate, a due date not before today, the amount and account given, a txid not in use,
   * no other live charge of the mandate for that date); then ATIVA, awaiting its debit.
   */
  schedule(txid: string, body: Record<string, unknown>): CobR | string {
    const rec = this.recs.get(String(body.idRec));
    const calendario = body.calendario as { dataDeVencimento?: unknown } | undefined;
    const valor = body.valor as { original?: unknown } | undefined;
    const recebedor = body.recebedor as CobR['recebedor'] | undefined;
    const due = calendario?.dataDeVencimento;
    if (!/^[a-zA-Z0-9]{26,35}$/.test(txid) || this.cobrs.has(txid)) return 'txid inválido ou em uso';
    if (rec?.status !== 'APROVADA') return 'a recorrência não existe ou não está aprovada';
    if (typeof due !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(due) || due < saoPauloToday()) {
      return 'calendario.dataDeVencimento é anterior à data de criação da cobrança';
    }
    if (typeof valor?.original !== 'string' || !/^\d{1,10}\.\d{2}$/.test(valor.original)) {
      return 'valor não respeita o schema';
    }
    if (rec.valorRec && valor.original !== rec.valorRec) return 'valor difere do valor da recorrência';
    if (!recebedor?.conta || !recebedor.tipoConta) return 'recebedor não respeita o schema';
    if (typeof body.ajusteDiaUtil !== 'boolean') return 'ajusteDiaUtil não respeita o schema';
    for (const other of this.cobrs.values()) {
      const live = other.status !== 'REJEITADA' && other.status !== 'CANCELADA';
      if (other.idRec === rec.idRec && live && other.dataDeVencimento === due) {
        return 'existe uma cobrança da recorrência para o mesmo ciclo';
      }
    }
    const now = new Date().toISOString();
    const cobr: CobR = {
      txid,
      idRec: rec.idRec,
      valor: valor.original,
      status: 'ATIVA',
      criacao: saoPauloToday(),
      dataDeVencimento: due,
      pix: [],
      atualizacao: [
        { status: 'CRIADA', data: now },
        { status: 'ATIVA', data: now },
      ],
      recebedor,
      ...(body.devedor ? { devedor: body.devedor as CobR['devedor'] } : {}),
    };
    this.cobrs.set(txid, cobr);
    return cobr;
  }

  /**
   * The payer's bank on a scheduled cycle's date: debits it (CONCLUIDA with the Pix of `paidCents`, the charge by
   * default) or refuses it (REJEITADA, no funds); then the `{webhookUrl}/cobr` callback.
   */
  async settleScheduled(txid: string, result: 'debit' | 'reject', options: { paidCents?: number } = {}) {
    const cobr = this.cobrs.get(txid);
    if (cobr?.status !== 'ATIVA') throw new Error(`no active cobr ${txid}`);
    const now = new Date().toISOString();
    if (result === 'debit') {
      const pix: ReceivedPix = {
        endToEndId: newEndToEndId('E'),
        txid,
        valor: options.paidCents === undefined ? cobr.valor : formatReais(options.paidCents),
        horario: now,
        devolucoes: [],
      };
      cobr.pix.push(pix);
      this.state.pix.set(pix.endToEndId, pix);
    } else cobr.rejectedEndToEndId = newEndToEndId('E');
    cobr.status = result === 'debit' ? 'CONCLUIDA' : 'REJEITADA';
    cobr.atualizacao.push({ status: cobr.status, data: now });
    await this.notifyCharge(cobr);
    return cobr;
  }

  /** The `{webhookUrl}/cobr` callback for a charge (paid, or one of its Pix's refunds settled). */
  notifyCharge(cobr: CobR): Promise<void> {
    return this.notifyCobr([cobrNotification(cobr)]);
  }

  /** Callbacks naming a mandate / a charge this PSP does not have (nothing to read back). */
  async notifyUnknown(idRec: string, txid: string): Promise<void> {
    const data = new Date().toISOString();
    await this.notifyRec([{ idRec, status: 'APROVADA', atualizacao: [{ status: 'APROVADA', data }] }]);
    await this.notifyCobr([
      { idRec, txid, status: 'CONCLUIDA', atualizacao: [{ status: 'CONCLUIDA', data }] },
    ]);
  }

  private notifyRec(recs: unknown[]): Promise<void> {
    return this.notify(this.webhookRec, '/rec', { recs });
  }

  private notifyCobr(cobsr: unknown[]): Promise<void> {
    return this.notify(this.webhookCobr, '/cobr', { cobsr });
  }

  private async notify(base: string | null, path: '/rec' | '/cobr', body: unknown): Promise<void> {
    if (!base) return;
    this.callbacks.push({ path, body });
    await post(`${base}${path}`, body);
  }

  /** The standard's routes for Pix Automático that a receiving user's system calls, and the try-out controls. */
  routes(app: FastifyInstance): void {
    app.put('/webhookrec', async (req) => {
      this.webhookRec = (req.body as { webhookUrl: string }).webhookUrl;
      return '';
    });
    app.put('/webhookcobr', async (req) => {
      this.webhookCobr = (req.body as { webhookUrl: string }).webhookUrl;
      return '';
    });
    app.get('/rec/:idRec', async (req, reply) => {
      const rec = this.recs.get((req.params as { idRec: string }).idRec);
      return rec ? recView(rec) : reply.code(404).send(notFound);
    });
    app.get('/cobr/:txid', async (req, reply) => {
      const cobr = this.cobrs.get((req.params as { txid: string }).txid);
      return cobr ? cobrView(cobr) : reply.code(404).send(notFound);
    });
    app.put('/cobr/:txid', async (req, reply) => {
      const scheduled = this.schedule((req.params as { txid: string }).txid, (req.body ?? {}) as never);
      if (typeof scheduled === 'string') return reply.code(400).send(invalidCobr(scheduled));
      return reply.code(201).send(cobrView(scheduled));
    });
    app.patch('/cobr/:txid', async (req, reply) => {
      const cobr = this.cobrs.get((req.params as { txid: string }).txid);
      if (!cobr) return reply.code(404).send(notFound);
      const status = (req.body as { status?: string } | undefined)?.status;
      // the standard: no cancelling on or after the date of the first debit attempt
      if (status !== 'CANCELADA' || cobr.status !== 'ATIVA' || cobr.dataDeVencimento <= saoPauloToday()) {
        return reply.code(400).send(invalidCobr(`cobrança ${cobr.status} não pode ser cancelada`));
      }
      cobr.status = 'CANCELADA';
      cobr.atualizacao.push({ status: 'CANCELADA', data: new Date().toISOString() });
      return cobrView(cobr);
    });
    app.post('/dev/cobr/:txid/:result', async (req, reply) => {
      const { txid, result } = req.params as { txid: string; result: string };
      if (this.cobrs.get(txid)?.status !== 'ATIVA') return reply.code(404).send(notFound);
      if (result !== 'debit' && result !== 'reject') return reply.code(404).send(notFound);
      return cobrView(await this.settleScheduled(txid, result));
    });
    app.post('/dev/rec', async (req, reply) => {
      const body = (req.body ?? {}) as { contrato?: string; amountCents?: number };
      if (!body.contrato) return reply.code(400).send({ title: 'contrato is required', status: 400 });
      return reply.code(201).send(recView(this.create({ ...body, contrato: body.contrato })));
    });
    app.post('/dev/rec/:idRec/approve', async (req, reply) => {
      const { idRec } = req.params as { idRec: string };
      if (!this.recs.has(idRec)) return reply.code(404).send(notFound);
      return recView(await this.approve(idRec));
    });
    app.post('/dev/rec/:idRec/cycles', async (req, reply) => {
      const { idRec } = req.params as { idRec: string };
      if (!this.recs.has(idRec)) return reply.code(404).send(notFound);
      const amount = (req.body as { amountCents?: number } | undefined)?.amountCents;
      return cobrView(await this.payCycle(idRec, amount === undefined ? {} : { amountCents: amount }));
    });
  }
}

async function post(url: string, body: unknown): Promise<void> {
  const res = await httpRequest(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.body.dump();
  if (res.statusCode >= 300) throw new Error(`webhook answered ${res.statusCode}`);
}

const saoPauloToday = () => toSaoPaulo(new Date()).slice(0, 10);

function invalidCobr(detail: string) {
  return {
    type: 'https://pix.bcb.gov.br/api/v2/error/CobROperacaoInvalida',
    title: 'Cobrança inválida.',
    status: 400,
    detail,
  };
}

/** The local PSP's receiving user, as the standard's `recebedor` of a mandate. */
const RECEBEDOR = { cnpj: '99999999000191', nome: 'Gateway Recebedor Ltda' };
const PAGADOR_ISPB = '99999999';

/** GET /rec/{idRec}: the standard's RecCompleta. */
export function recView(rec: Rec) {
  return {
    idRec: rec.idRec,
    status: rec.status,
    vinculo: { objeto: rec.objeto, contrato: rec.contrato, devedor: rec.devedor },
    calendario: { dataInicial: rec.dataInicial, periodicidade: 'MENSAL' },
    ...(rec.valorRec ? { valor: { valorRec: rec.valorRec } } : {}),
    politicaRetentativa: 'NAO_PERMITE',
    recebedor: RECEBEDOR,
    pagador: { ispbParticipante: PAGADOR_ISPB, ...payerDocument(rec) },
    atualizacao: rec.atualizacao,
    ativacao: { tipoJornada: rec.jornada },
  };
}

function payerDocument(rec: Rec) {
  return rec.devedor.cnpj ? { cnpj: rec.devedor.cnpj } : { cpf: rec.devedor.cpf! };
}

function recNotification(rec: Rec) {
  return {
    idRec: rec.idRec,
    status: rec.status,
    atualizacao: rec.atualizacao,
    ativacao: { tipoJornada: rec.jornada },
  };
}

/** GET /cobr/{txid}: the standard's CobRCompleta. */
export function cobrView(cobr: CobR) {
  return {
    idRec: cobr.idRec,
    txid: cobr.txid,
    calendario: { criacao: cobr.criacao, dataDeVencimento: cobr.dataDeVencimento },
    valor: { original: cobr.valor },
    ajusteDiaUtil: true,
    // the account the charge named, and the receiving user it belongs to (CobRGerada's PessoaJuridicaRecorrencia)
    recebedor: {
      ...(cobr.recebedor ?? { agencia: '0001', conta: '123456', tipoConta: 'CORRENTE' }),
      ...RECEBEDOR,
    },
    ...(cobr.devedor ? { devedor: cobr.devedor } : {}),
    status: cobr.status,
    politicaRetentativa: 'NAO_PERMITE',
    pix: cobr.pix.map(({ devolucoes, ...pix }) => (devolucoes.length > 0 ? { ...pix, devolucoes } : pix)),
    atualizacao: cobr.atualizacao,
    tentativas: tentativas(cobr),
  };
}

/** The debit attempts: one paid per Pix; a refused charge's one attempt (its payer's account closed). */
function tentativas(cobr: CobR) {
  if (cobr.status === 'REJEITADA') {
    const at = cobr.atualizacao.at(-1)!.data;
    return [
      {
        dataLiquidacao: cobr.dataDeVencimento,
        tipo: 'AGND',
        endToEndId: cobr.rejectedEndToEndId!,
        status: 'REJEITADA',
        rejeicao: { codigo: 'AC05', descricao: 'Conta do usuário pagador encerrada' },
        atualizacao: [{ status: 'REJEITADA', data: at }],
      },
    ];
  }
  return cobr.pix.map((pix) => ({
    dataLiquidacao: pix.horario.slice(0, 10),
    tipo: 'AGND',
    endToEndId: pix.endToEndId,
    status: 'PAGA',
    atualizacao: [{ status: 'PAGA', data: pix.horario }],
  }));
}

function cobrNotification(cobr: CobR) {
  const {
    calendario: _c,
    valor: _v,
    ajusteDiaUtil: _a,
    recebedor: _r,
    politicaRetentativa: _p,
    ...rest
  } = cobrView(cobr);
  return rest;
}

import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { brCode, nextBusinessDay } from '../payment-standards/index.js';
import { formatReais, parseReais } from '../platform/money/money.js';
import { addDays } from '../platform/time/calendar.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { newEndToEndId, type PspState, type ReceivedPix } from './state.js';

/** A charge with due date (the standard's CobVSolicitada as received, plus what the PSP adds). */
export interface Cobv {
  txid: string;
  chave: string;
  criacao: string;
  location: string;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
  calendario: { dataDeVencimento: string; validadeAposVencimento?: number };
  devedor: Record<string, string>;
  valor: {
    original: string;
    multa?: { modalidade: number; valorPerc: string };
    juros?: { modalidade: number; valorPerc: string };
    desconto?: { modalidade: number; descontoDataFixa?: { data: string; valorPerc: string }[] };
  };
}

const DAY_MS = 86_400_000;
const days = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS);
const cents = (reais: string) => parseReais(reais) ?? 0;

/**
 * What a payer is asked on `day` (YYYY-MM-DD), as this PSP reads a cobv: fixed discount up to its dates (the
 * first date not passed), fine (modalidade 2, percent) after the due date, interest (modalidade 3, percent a
 * month, calendar days) per day late. A due date on a weekend or a national holiday is moved to the next
 * business day, and every date that refers to it with it (the API Pix, `validadeAposVencimento`). Null when the
 * cobv can no longer be paid that day.
 */
export function cobvAmountOn(cobv: Cobv, day: string): number | null {
  const due = nextBusinessDay(cobv.calendario.dataDeVencimento);
  const late = days(due, day);
  const lastDay = nextBusinessDay(addDays(due, cobv.calendario.validadeAposVencimento ?? 30));
  if (day > lastDay) return null;
  const original = cents(cobv.valor.original);
  if (late <= 0) {
    const discount = cobv.valor.desconto?.descontoDataFixa?.find((d) => day <= nextBusinessDay(d.data));
    return discount ? original - cents(discount.valorPerc) : original;
  }
  // percentages in hundredths: "2.00" → 200
  const fine = cobv.valor.multa ? Math.round((original * cents(cobv.valor.multa.valorPerc)) / 10000) : 0;
  const interest = cobv.valor.juros
    ? Math.round((original * cents(cobv.valor.juros.valorPerc) * late) / 300000)
    : 0;
  return original + fine + interest;
}

/** The local PSP's cobv routes (PUT, GET, PATCH /cobv/{txid}) and its payer. */
export class CobvPsp {
  readonly cobvs = new Map<string, Cobv>();

  constructor(
    private readonly state: PspState,
    private readonly notify: (chave: string, pix: ReceivedPix[]) => Promise<void>,
  ) {}

  /**
   * A payer pays the cobv on `at` (default now) the amount due that day, unless told another. `again`: a cobv
   * already CONCLUIDA is paid once more (a second Pix with its own end-to-end id, as a PSP may let through).
   */
  async pay(
    txid: string,
    options: { at?: Date; amountCents?: number; times?: number; again?: boolean } = {},
  ): Promise<ReceivedPix> {
    const cobv = this.cobvs.get(txid);
    if (!cobv) throw new Error(`no cobv ${txid}`);
    const payable = cobv.status === 'ATIVA' || (options.again === true && cobv.status === 'CONCLUIDA');
    if (!payable) throw new Error(`cobv ${txid} is ${cobv.status}`);
    const at = options.at ?? new Date();
    const due = cobvAmountOn(cobv, toSaoPaulo(at).slice(0, 10));
    if (due === null && options.amountCents === undefined)
      throw new Error(`cobv ${txid} is past its validity`);
    const pix: ReceivedPix = {
      endToEndId: newEndToEndId('E'),
      txid,
      valor: formatReais(options.amountCents ?? due!),
      horario: at.toISOString(),
      devolucoes: [],
    };
    this.state.pix.set(pix.endToEndId, pix);
    cobv.status = 'CONCLUIDA';
    for (let i = 0; i < (options.times ?? 1); i++) await this.notify(cobv.chave, [pix]);
    return pix;
  }

  routes(app: FastifyInstance, url: () => string): void {
    app.put('/cobv/:txid', async (req, reply) => {
      const { txid } = req.params as { txid: string };
      const body = req.body as Omit<Cobv, 'txid' | 'criacao' | 'location' | 'status'>;
      const cobv: Cobv = {
        txid,
        chave: body.chave,
        criacao: new Date().toISOString(),
        location: `${url().replace(/^https:\/\//, '')}/qr/v2/cobv/${randomBytes(16).toString('hex')}`,
        status: 'ATIVA',
        calendario: body.calendario,
        devedor: body.devedor,
        valor: body.valor,
      };
      this.cobvs.set(txid, cobv);
      return reply.code(201).send(cobvView(cobv));
    });
    app.get('/cobv/:txid', async (req, reply) => {
      const cobv = this.cobvs.get((req.params as { txid: string }).txid);
      if (!cobv) return reply.code(404).send(NOT_FOUND);
      const pix = [...this.state.pix.values()]
        .filter((p) => p.txid === cobv.txid)
        .map(({ endToEndId, txid, valor, horario }) => ({ endToEndId, txid, valor, horario }));
      return pix.length > 0 ? { ...cobvView(cobv), pix } : cobvView(cobv);
    });
    // by hand (the banner of `gateway dev-psp`): the payer pays a boleto's Pix today, its amount as of today
    // (fine, interest, discount), or `amountCents`; `again` pays a paid one a second time (a duplicate payment)
    app.post('/dev/cobv/:txid/pay', async (req, reply) => {
      const { txid } = req.params as { txid: string };
      if (!this.cobvs.has(txid)) return reply.code(404).send(NOT_FOUND);
      const body = (req.body ?? {}) as { amountCents?: unknown; again?: unknown };
      const amountCents =
        typeof body.amountCents === 'number' && Number.isSafeInteger(body.amountCents) && body.amountCents > 0
          ? body.amountCents
          : undefined;
      try {
        return await this.pay(txid, { amountCents, again: body.again === true });
      } catch (err) {
        return reply
          .code(409)
          .send({ title: 'Cobrança não pagável', status: 409, detail: (err as Error).message });
      }
    });
    app.patch('/cobv/:txid', async (req, reply) => {
      const cobv = this.cobvs.get((req.params as { txid: string }).txid);
      if (!cobv) return reply.code(404).send(NOT_FOUND);
      const status = (req.body as { status?: string } | undefined)?.status;
      if (status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR' || cobv.status !== 'ATIVA') {
        return reply.code(400).send({
          type: 'https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida',
          title: 'Cobrança inválida.',
          status: 400,
          detail: `cobrança ${cobv.status} não pode ser revisada`,
        });
      }
      cobv.status = status;
      return cobvView(cobv);
    });
  }
}

const NOT_FOUND = {
  type: 'https://pix.bcb.gov.br/api/v2/error/CobVNaoEncontrado',
  title: 'Não Encontrado',
  status: 404,
  detail: 'Entidade não encontrada.',
};

function cobvView(cobv: Cobv) {
  return {
    calendario: { criacao: cobv.criacao, ...cobv.calendario },
    txid: cobv.txid,
    revisao: 0,
    loc: { id: 2, txid: cobv.txid, location: cobv.location, tipoCob: 'cobv', criacao: cobv.criacao },
    location: cobv.location,
    status: cobv.status,
    devedor: cobv.devedor,
    recebedor: {
      cnpj: '11222333000181',
      nome: 'PSP LOCAL RECEBEDOR',
      logradouro: 'Rua Local, 1',
      cidade: 'SAO PAULO',
      uf: 'SP',
      cep: '01001000',
    },
    valor: cobv.valor,
    chave: cobv.chave,
    pixCopiaECola: brCode({
      kind: 'dynamic',
      location: cobv.location,
      merchantName: 'PSP LOCAL',
      merchantCity: 'SAO PAULO',
    }),
  };
}

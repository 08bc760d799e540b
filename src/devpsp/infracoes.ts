import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * A MED infraction as Efí's API lists it (GET /v2/gn/infracoes, an Efí extension of its API Pix; the fields are
 * those of Efí's Node SDK typings, efipay/sdk-node-apis-efi, `medList`), reduced to what the local PSP fills.
 */
export interface Infracao {
  idInfracao: string;
  endToEndId: string;
  protocolo: string;
  dataTransacao: string;
  valor: string;
  status: 'ABERTA' | 'ACEITA' | 'CANCELADA_EFI' | 'EM_DEFESA' | 'REJEITADA';
  razao: string;
  tipoSituacao: 'golpe';
  identificadorTicket: number[];
  dadosAnalise: {
    abertura: string;
    prazoFinalizacao: string;
    recebimentoDefesa?: string;
    finalizacao?: string;
  };
  defesa?: string;
  criadoEm: string;
  atualizadoEm: string;
}

const DAY_MS = 86_400_000;

/** The local PSP's MED infractions: opened by a test or `POST /dev/infracoes`, listed by the window of creation. */
export class Infracoes {
  readonly all = new Map<string, Infracao>();

  open(
    pix: { endToEndId: string; valor: string; horario: string },
    razao = 'Pagador relata golpe',
  ): Infracao {
    const now = new Date();
    const infracao: Infracao = {
      idInfracao: randomBytes(8).toString('hex'),
      endToEndId: pix.endToEndId,
      protocolo: `MED${randomBytes(5).toString('hex').toUpperCase()}`,
      dataTransacao: pix.horario,
      valor: pix.valor,
      status: 'ABERTA',
      razao,
      tipoSituacao: 'golpe',
      identificadorTicket: [],
      dadosAnalise: {
        abertura: now.toISOString(),
        prazoFinalizacao: new Date(now.getTime() + 7 * DAY_MS).toISOString(),
      },
      criadoEm: now.toISOString(),
      atualizadoEm: now.toISOString(),
    };
    this.all.set(infracao.idInfracao, infracao);
    return infracao;
  }

  /** The PSP's analysis ends: ACEITA (the payer is refunded) or REJEITADA (the merchant keeps the money). */
  close(idInfracao: string, status: 'ACEITA' | 'REJEITADA' | 'CANCELADA_EFI'): Infracao {
    const infracao = this.all.get(idInfracao);
    if (!infracao) throw new Error(`no infraction ${idInfracao}`);
    const now = new Date().toISOString();
    infracao.status = status;
    infracao.dadosAnalise.finalizacao = now;
    infracao.atualizadoEm = now;
    return infracao;
  }

  routes(
    app: FastifyInstance,
    pixOf: (e2eid: string) => { endToEndId: string; valor: string; horario: string } | undefined,
  ) {
    app.get('/v2/gn/infracoes', async (req, reply) => {
      const { inicio, fim } = req.query as { inicio?: string; fim?: string };
      if (!inicio || !fim || Number.isNaN(Date.parse(inicio)) || Number.isNaN(Date.parse(fim))) {
        return reply
          .code(400)
          .send({ nome: 'parametros_invalidos', mensagem: 'inicio e fim são obrigatórios' });
      }
      const infracoes = [...this.all.values()].filter(
        (i) => i.atualizadoEm >= new Date(inicio).toISOString() && i.criadoEm <= new Date(fim).toISOString(),
      );
      return {
        parametros: {
          inicio,
          fim,
          paginacao: {
            paginaAtual: 0,
            itensPorPagina: infracoes.length,
            quantidadeDePaginas: 1,
            quantidadeTotalDeItens: infracoes.length,
          },
        },
        infracoes,
      };
    });
    app.post('/v2/gn/infracoes/:idInfracao/defesa', async (req, reply) => {
      const infracao = this.all.get((req.params as { idInfracao: string }).idInfracao);
      if (!infracao)
        return reply.code(404).send({ nome: 'infracao_nao_encontrada', mensagem: 'Infração não encontrada' });
      const { analise, justificativa } = (req.body ?? {}) as { analise?: string; justificativa?: string };
      if (
        (analise !== 'aceito' && analise !== 'rejeitado') ||
        typeof justificativa !== 'string' ||
        !justificativa
      ) {
        return reply
          .code(400)
          .send({ nome: 'json_invalido', mensagem: 'analise (aceito ou rejeitado) e justificativa' });
      }
      if (infracao.status !== 'ABERTA') {
        return reply
          .code(400)
          .send({ nome: 'infracao_nao_aberta', mensagem: 'A infração não aceita defesa' });
      }
      const now = new Date().toISOString();
      infracao.defesa = justificativa;
      infracao.dadosAnalise.recebimentoDefesa = now;
      infracao.atualizadoEm = now;
      // accepted, the payer is refunded; contested, Efí analyses it
      infracao.status = analise === 'aceito' ? 'ACEITA' : 'EM_DEFESA';
      return reply.code(200).send('');
    });
    app.post('/dev/infracoes', async (req, reply) => {
      const { endToEndId, razao } = (req.body ?? {}) as { endToEndId?: string; razao?: string };
      const pix = endToEndId ? pixOf(endToEndId) : undefined;
      if (!pix) return reply.code(404).send({ nome: 'pix_nao_encontrado', mensagem: 'Pix não encontrado' });
      return reply.code(201).send(this.open(pix, razao));
    });
    app.post('/dev/infracoes/:id/status', async (req, reply) => {
      const { id } = req.params as { id: string };
      const { status } = (req.body ?? {}) as { status?: string };
      if (!this.all.has(id))
        return reply.code(404).send({ nome: 'infracao_nao_encontrada', mensagem: 'Infração não encontrada' });
      if (status !== 'ACEITA' && status !== 'REJEITADA' && status !== 'CANCELADA_EFI') {
        return reply
          .code(400)
          .send({ nome: 'status_invalido', mensagem: 'ACEITA, REJEITADA ou CANCELADA_EFI' });
      }
      return this.close(id, status);
    });
  }
}

import type { ReceivedPix } from './state.js';

/** The standard's PixConsultados (GET /pix): the query as understood, and one page of the Pix it selects. */
export interface ReceivedPage {
  parametros: {
    inicio: string;
    fim: string;
    paginacao: {
      paginaAtual: number;
      itensPorPagina: number;
      quantidadeDePaginas: number;
      quantidadeTotalDeItens: number;
    };
  };
  pix: object[];
}

const MAX_PER_PAGE = 1000;
const DEFAULT_PER_PAGE = 100;

/**
 * One page of the Pix received between `inicio` and `fim` (both included, RFC 3339), oldest first, as the yaml's
 * GET /pix defines it (`paginacao.paginaAtual` from 0, `paginacao.itensPorPagina` 1–1000, default 100). Pix are
 * kept in the order they were received, so the selection is one pass over them; the times are compared as
 * the UTC ISO strings the local PSP writes.
 */
export function receivedPage(
  all: Iterable<ReceivedPix>,
  query: Record<string, string | undefined>,
): ReceivedPage | { problem: object } {
  const inicio = instant(query.inicio);
  const fim = instant(query.fim);
  const page = whole(query['paginacao.paginaAtual'] ?? '0', 0, Number.MAX_SAFE_INTEGER);
  const perPage = whole(query['paginacao.itensPorPagina'] ?? String(DEFAULT_PER_PAGE), 1, MAX_PER_PAGE);
  if (inicio === null || fim === null || page === null || perPage === null || fim < inicio) {
    return { problem: invalidQuery };
  }
  const first = page * perPage;
  const pix: object[] = [];
  let total = 0;
  for (const p of all) {
    if (p.horario < inicio || p.horario > fim) continue;
    if (total >= first && total < first + perPage) pix.push(pixView(p));
    total++;
  }
  return {
    parametros: {
      inicio: query.inicio!,
      fim: query.fim!,
      paginacao: {
        paginaAtual: page,
        itensPorPagina: perPage,
        quantidadeDePaginas: Math.max(1, Math.ceil(total / perPage)),
        quantidadeTotalDeItens: total,
      },
    },
    pix,
  };
}

function instant(text: string | undefined): string | null {
  if (!text) return null;
  const at = Date.parse(text);
  return Number.isFinite(at) ? new Date(at).toISOString() : null;
}

function whole(text: string, min: number, max: number): number | null {
  if (!/^\d{1,16}$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** A Pix as the standard writes it: `devolucoes` only when it has some. */
export function pixView(pix: ReceivedPix): object {
  const { devolucoes, ...rest } = pix;
  return devolucoes.length > 0 ? { ...rest, devolucoes } : rest;
}

const invalidQuery = {
  type: 'https://pix.bcb.gov.br/api/v2/error/ConsultaPixInvalida',
  title: 'Consulta inválida.',
  status: 400,
  detail: 'inicio, fim e paginacao devem ser válidos.',
};

import { type PixApiClient, PspError } from '../payment-standards/index.js';
import type { Pix } from '../pix/index.js';

/** The standard's answer to GET /pix (PixConsultados), as far as reconciliation reads it. */
interface PixConsultados {
  parametros?: { paginacao?: { quantidadeDePaginas?: number } };
  pix?: Pix[];
}

/** The PSP's own limit on `paginacao.itensPorPagina`. */
export const MAX_PER_PAGE = 1000;

/**
 * The Pix the PSP received in [from, to), one page at a time from `firstPage` on: the caller holds one page,
 * never the window. `fim` is inclusive in the standard, so it is sent as the last millisecond before `to`.
 */
export async function* receivedPages(
  client: PixApiClient,
  from: Date,
  to: Date,
  firstPage: number,
  perPage: number,
): AsyncGenerator<{ page: number; pix: Pix[] }> {
  for (let page = firstPage; ; page++) {
    const query = new URLSearchParams({
      inicio: from.toISOString(),
      fim: new Date(to.getTime() - 1).toISOString(),
      'paginacao.paginaAtual': String(page),
      'paginacao.itensPorPagina': String(perPage),
    });
    const res = await client.call<PixConsultados | null>('GET', `/pix?${query}`);
    if (res.status !== 200 || !Array.isArray(res.body?.pix)) {
      throw new PspError(
        `GET /pix answered ${res.status}${res.status === 200 ? ' without a list' : ''}`,
        res.status,
      );
    }
    const pix = res.body.pix;
    yield { page, pix };
    const pages = res.body.parametros?.paginacao?.quantidadeDePaginas ?? 1;
    if (page + 1 >= pages || pix.length === 0) return;
  }
}

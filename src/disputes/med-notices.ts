import { saleOfReceivedPix } from '../pix/index.js';
import type { Db } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';
import { parseReais } from '../platform/money/money.js';
import { findDisputeByExternalId, findDisputeById } from './data.js';
import type { Disputes } from './disputes.js';
import { EFI_MED } from './source.js';

/** How often the PSP's MED infractions are read, and how far back. */
export const MED_CHECK_EVERY_MS = 10 * 60_000;
export const MED_WINDOW_DAYS = 30;

/** The PSP has no MED infraction list (Efí's extension of API Pix): its MEDs show only as devoluções. */
export class NoInfractionList extends Error {
  constructor() {
    super('GET /v2/gn/infracoes answered 404: this PSP has no MED infraction list');
  }
}

/** What the gateway reads of one of Efí's MED infractions (GET /v2/gn/infracoes). */
export interface Infracao {
  idInfracao: string;
  endToEndId: string;
  valor: string;
  status: 'ABERTA' | 'ACEITA' | 'CANCELADA_EFI' | 'EM_DEFESA' | 'REJEITADA';
  razao?: string;
}

/** A GET of the PSP's API (the bcb processor's client: mutual TLS, OAuth 2). */
export type PspGet = <T>(path: string) => Promise<{ status: number; body: T }>;

export interface MedReport {
  listed: number;
  opened: number;
  won: number;
  lost: number;
  /** Infractions of a Pix that credited no sale of the gateway. */
  unknown: number;
  /** Infractions of a sale that cannot be disputed now (no longer PAGO: refunded, or disputed otherwise). */
  skipped: number;
}

/**
 * Reads the PSP's MED infractions of the window and acts on each, once: an open one (ABERTA, EM_DEFESA) of a Pix
 * that credited a sale opens its dispute (a MED; the notice's id keeps a second reading from opening another);
 * a closed one decides its open dispute: ACEITA (the payer's bank was right: the devolução) → lost, REJEITADA or
 * CANCELADA_EFI → won. A dispute already closed stays as it is.
 */
export async function readMedNotices(
  db: Db,
  disputes: Disputes,
  get: PspGet,
  window: { from: Date; to: Date },
): Promise<MedReport> {
  const query = `inicio=${encodeURIComponent(window.from.toISOString())}&fim=${encodeURIComponent(window.to.toISOString())}`;
  const res = await get<{ infracoes?: Infracao[] }>(`/v2/gn/infracoes?${query}`);
  // a PSP of the standard alone has no such list: not a failure to repeat every ten minutes
  if (res.status === 404) throw new NoInfractionList();
  if (res.status !== 200) {
    throw new AppError('PROCESSOR_ERROR', `GET /v2/gn/infracoes answered ${res.status}`);
  }
  const report: MedReport = { listed: 0, opened: 0, won: 0, lost: 0, unknown: 0, skipped: 0 };
  for (const infracao of res.body.infracoes ?? []) {
    report.listed++;
    const known = await findDisputeByExternalId(db, EFI_MED, infracao.idInfracao);
    const open = infracao.status === 'ABERTA' || infracao.status === 'EM_DEFESA';
    if (!known) {
      if (!open) continue;
      const saleId = await saleOfReceivedPix(db, infracao.endToEndId);
      if (saleId === null) {
        report.unknown++;
        continue;
      }
      const cents = parseReais(infracao.valor);
      try {
        await disputes.open({
          accountId: null,
          sale: { kind: 'numeric', id: saleId },
          kind: 'med',
          ...(cents === null ? {} : { amountCents: cents }),
          reason: infracao.razao ?? null,
          source: EFI_MED,
          externalId: infracao.idInfracao,
        });
        report.opened++;
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'CONFLICT') throw err;
        report.skipped++;
      }
    } else if (!open && !known.closed_at) {
      // ACEITA loses it; a MED devolução made during it (the PSP gave that money back) is lost whatever the
      // verdict, for what it gave back: REJEITADA then wins the rest (decide reads it with the dispute locked)
      try {
        const closed = await disputes.decide(null, known.uuid, infracao.status === 'ACEITA' ? 'lost' : 'won');
        // as it closed (a sale refunded in full during it is lost whatever the verdict)
        report[closed.status === 'won' ? 'won' : 'lost']++;
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'CONFLICT') throw err;
        report.skipped++;
      }
    }
  }
  return report;
}

/** A POST to the PSP's API (the bcb processor's client). */
export type PspPost = (path: string, body: unknown) => Promise<{ status: number }>;

/**
 * Sends the merchant's side of a MED to Efí (`POST /v2/gn/infracoes/{idInfracao}/defesa {analise,
 * justificativa}`): an answered dispute as `rejeitado` with the merchant's text, an accepted one as `aceito`.
 * Efí's defence takes a text only: the evidence files stay with the gateway. A refusal is thrown (retried).
 */
export async function sendDefence(db: Db, post: PspPost, disputeId: number): Promise<void> {
  const d = await findDisputeById(db, disputeId);
  if (!d || d.source !== EFI_MED || !d.external_id) return;
  const body =
    d.status === 'accepted'
      ? { analise: 'aceito', justificativa: 'O recebedor aceita a devolução.' }
      : {
          analise: 'rejeitado',
          justificativa:
            d.response_text?.trim() || 'O recebedor contesta a infração e guarda as provas enviadas.',
        };
  const res = await post(`/v2/gn/infracoes/${encodeURIComponent(d.external_id)}/defesa`, body);
  if (res.status < 200 || res.status >= 300) {
    throw new AppError('PROCESSOR_ERROR', `POST /v2/gn/infracoes/{id}/defesa answered ${res.status}`);
  }
}

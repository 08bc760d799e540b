import type { Static } from 'typebox';
import type { DisputeRow, EvidenceRow } from './data.js';
import type { Dispute } from './schemas.js';

/** The Dispute object of the API (decisions.md, Disputes). */
export type DisputeView = Static<typeof Dispute>;
type EvidenceType = DisputeView['evidence'][number]['contentType'];

export function disputeView(d: DisputeRow, evidence: EvidenceRow[]): DisputeView {
  return {
    id: d.uuid,
    saleId: d.sale_uuid,
    kind: d.kind,
    status: d.status,
    amountCents: Number(d.amount_cents),
    reason: d.reason,
    respondBy: d.respond_by.toISOString(),
    evidence: evidence
      .filter((e) => Number(e.dispute_id) === Number(d.id))
      .map((e) => ({
        id: e.uuid,
        name: e.name,
        contentType: e.content_type as EvidenceType,
        size: Number(e.size),
      })),
    responseText: d.response_text,
    createdAt: d.created_at.toISOString(),
    closedAt: d.closed_at ? d.closed_at.toISOString() : null,
  };
}

/** A dispute.* delivery's body: the Dispute object, with `type` so a receiver knows it from the signed body. */
export function disputeWebhookBody(d: DisputeRow, evidence: EvidenceRow[]): object {
  return { ...disputeView(d, evidence), type: 'DISPUTE' };
}

import type { FastifyRequest } from 'fastify';
import type { Db } from '../platform/db/db.js';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { pageOf, parsePage } from '../platform/paging/pagination.js';
import { type AuditRow, listAudit } from './audit.data.js';
import { AuditPage, AuditQuery } from './schemas.js';

function view(r: AuditRow) {
  return {
    id: Number(r.id),
    at: r.at.toISOString(),
    actor: { type: r.actor_type, id: r.actor_id === null ? null : Number(r.actor_id), label: r.actor_label },
    action: r.action,
    target: r.target,
    ip: r.ip,
    userAgent: r.user_agent,
  };
}

/** The account's audit log, newest first (append-only: there is no route that changes it). */
export async function auditRoutes(
  app: Http,
  deps: {
    db: Db;
    requireSession: AuthHook;
    /** The account whose log a panel request reads (its session's; auth owns sessions and writes to audit). */
    accountOf: (request: FastifyRequest) => number;
  },
): Promise<void> {
  app.get(
    '/api/audit-log',
    {
      config: { errorShape: 'envelope', permission: 'audit' },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: 'Who did what on this account, newest first',
        querystring: AuditQuery,
        response: { 200: AuditPage, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const rows = await listAudit(deps.db, deps.accountOf(request), page.limit + 1, page.before);
      const { rows: kept, nextCursor } = pageOf(
        rows.map((r) => ({ ...r, id: Number(r.id) })),
        page.limit,
      );
      return { data: kept.map(view), nextCursor };
    },
  );
}

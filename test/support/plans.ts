import type { Queryable } from '../../src/platform/db/db.js';

/** One node of an EXPLAIN (FORMAT JSON) plan, with the fields the tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
  [k: string]: unknown;
}

export interface Explained {
  sql: string;
  params: readonly unknown[];
  plan: PlanNode;
}

/**
 * A Queryable that explains each SELECT before running it (EXPLAIN ANALYZE: the plan and the rows each
 * node really read): the domain's own functions, called with it, record the plans of exactly the SQL they
 * send (same text, same parameters), and still get their rows.
 */
export function explaining(db: Queryable, plans: Explained[]): Queryable {
  return {
    async query<T>(text: string, params?: readonly unknown[]) {
      if (/^\s*(SELECT|WITH)\b/i.test(text)) {
        const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
          params,
        );
        plans.push({ sql: text, params: params ?? [], plan: row!['QUERY PLAN'][0]!.Plan });
      }
      return db.query<T>(text, params);
    },
  };
}

/** Every scan in a plan, as "Seq Scan on sales" or "Index Scan using sales_pkey on sales". */
export function scansOf(node: PlanNode): string[] {
  const own = node['Relation Name']
    ? [
        `${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''} on ${node['Relation Name']}`,
      ]
    : node['Index Name']
      ? [`${node['Node Type']} using ${node['Index Name']}`]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)];
}

/** The table a relation is, or is a partition of (`postings_p202611` and `postings_legacy` are `postings`). */
export function tableOf(relation: string): string {
  return relation.replace(/_(p\d{6}|legacy)$/, '');
}

/**
 * Rows a plan's scans of these tables (and of their partitions) read: those they returned plus those their
 * filters threw away.
 */
export function rowsRead(node: PlanNode, tables: string[]): number {
  const own =
    node['Relation Name'] && tables.includes(tableOf(node['Relation Name']))
      ? (Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0)) *
        Number(node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, tables), 0);
}

/**
 * The sequential scans of these tables (or their partitions) that read any row. A partition with no rows yet
 * (next month's, say) is scanned sequentially at no cost, because the planner sees it empty.
 */
export function seqScansReading(node: PlanNode, tables: string[]): string[] {
  const relation = node['Relation Name'];
  const own =
    relation &&
    /Seq Scan/.test(node['Node Type']) &&
    tables.includes(tableOf(relation)) &&
    rowsRead(node, tables) > 0
      ? [`${node['Node Type']} on ${relation}`]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => seqScansReading(child, tables))];
}

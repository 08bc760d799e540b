import { Counter } from 'prom-client';
import { registry } from '../platform/observability/metrics.js';

/** Discrepancies recorded, by kind, in the process whose run found them first. */
export const discrepanciesFound = new Counter({
  name: 'gateway_reconciliation_discrepancies_total',
  help: 'Discrepancies between the PSP and the gateway found by reconciliation, by kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});

import type { BoletoSettings } from '../platform/config/boleto.js';
import type { BoletoRow } from './data.js';

/**
 * The renderer and its PDF and barcode libraries are loaded by the first PDF asked for: a process that serves
 * none (most of them, most of the time) does not carry them.
 */
async function renderPdf(
  boleto: BoletoRow,
  settings: BoletoSettings,
  testMode: boolean,
  cancelled: boolean,
): Promise<Uint8Array> {
  const { renderBoletoPdf } = await import('./pdf.js');
  return renderBoletoPdf(boleto, settings, testMode, cancelled);
}

/** Bytes of rendered PDFs one process keeps (docs/decisions.md, "Boleto PDFs"). */
export const PDF_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Rendered boleto PDFs, kept in this process (least recently used out past `maxBytes`): a PDF is a function of
 * the boleto's row, whose printed fields never change once issued, and of this process's BOLETO_* settings and
 * SANDBOX (test mode marks the page), and of whether its sale was cancelled (marked "CANCELADO — NÃO PAGUE"), so
 * each process renders a boleto once in each of its two states: one cache per process and mode, keyed by sale and
 * state. Fetches of one boleto that arrive while it renders share that render.
 */
export class BoletoPdfCache {
  private readonly kept = new Map<string, Uint8Array>();
  private readonly rendering = new Map<string, Promise<Uint8Array>>();
  private bytes = 0;

  constructor(
    private readonly settings: BoletoSettings,
    private readonly maxBytes = PDF_CACHE_BYTES,
    /** SANDBOX on: every PDF rendered here carries "SEM VALOR — MODO DE TESTE". */
    private readonly testMode = false,
  ) {}

  async pdf(boleto: BoletoRow, cancelled = false): Promise<Uint8Array> {
    const id = `${boleto.sale_id}${cancelled ? ':cancelled' : ''}`;
    const hit = this.kept.get(id);
    if (hit) {
      // a Map iterates in insertion order: put back last, it is the most recently used
      this.kept.delete(id);
      this.kept.set(id, hit);
      return hit;
    }
    const running = this.rendering.get(id);
    if (running) return running;
    const render = renderPdf(boleto, this.settings, this.testMode, cancelled).finally(() =>
      this.rendering.delete(id),
    );
    this.rendering.set(id, render);
    const pdf = await render;
    this.keep(id, pdf);
    return pdf;
  }

  private keep(id: string, pdf: Uint8Array): void {
    if (pdf.byteLength > this.maxBytes || this.kept.has(id)) return;
    this.kept.set(id, pdf);
    this.bytes += pdf.byteLength;
    for (const [oldId, old] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(oldId);
      this.bytes -= old.byteLength;
    }
  }

  /** How many PDFs and bytes are kept (for tests and metrics). */
  size(): { pdfs: number; bytes: number } {
    return { pdfs: this.kept.size, bytes: this.bytes };
  }
}

import { readFileSync, writeFileSync } from 'node:fs';

/** A process's resident memory now (`VmRSS`) or its peak (`VmHWM`), in MB (Linux, /proc). */
export const memoryMb = (pid: number, field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/**
 * The process's peak RSS (MB) while `attack` runs: VmHWM after resetting it (writing 5 to clear_refs), and VmRSS
 * sampled every 10 ms besides, in case the reset is not allowed here.
 */
export async function peakDuring(
  pid: number,
  attack: () => Promise<void>,
): Promise<{ start: number; peak: number }> {
  let resettable = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    resettable = false;
  }
  const start = memoryMb(pid, 'VmRSS');
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryMb(pid, 'VmRSS'));
  }, 10);
  try {
    await attack();
  } finally {
    clearInterval(sampler);
  }
  if (resettable) peak = Math.max(peak, memoryMb(pid, 'VmHWM'));
  return { start, peak };
}

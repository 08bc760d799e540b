import { describe, expect, it } from 'vitest';
import { coalescedReader } from '../../../src/platform/concurrency/coalesced-reads.js';

describe('coalescedReader', () => {
  it('answers the keys asked for in one turn with one load, each with its own value', async () => {
    const loads: number[][] = [];
    const read = coalescedReader<number, string>(async (keys) => {
      loads.push([...keys]);
      return new Map(keys.filter((k) => k % 10 !== 0).map((k) => [k, `v${k}`]));
    });
    const keys = Array.from({ length: 100 }, (_, i) => i + 1);
    const values = await Promise.all(keys.map(read));
    expect(loads).toHaveLength(1);
    expect(loads[0]).toEqual(keys);
    expect(values).toEqual(keys.map((k) => (k % 10 === 0 ? undefined : `v${k}`)));
  });

  it('never joins a load already sent: a key asked for later gets a load of its own', async () => {
    let value = 'old';
    const started: string[] = [];
    const read = coalescedReader<string, string>(async (keys) => {
      const seen = value; // what the "query" sees when it starts
      started.push(seen);
      await new Promise((r) => setTimeout(r, 20));
      return new Map(keys.map((k) => [k, seen]));
    });
    const first = read('a');
    // the first load is under way (waited for, not timed: a loaded machine may run a 5 ms timer before it starts)
    while (started.length === 0) await new Promise((r) => setTimeout(r, 1));
    value = 'new';
    expect(await read('a')).toBe('new');
    expect(await first).toBe('old');
    expect(started).toEqual(['old', 'new']);
  });

  it('fails every read of a failed load, and the next load runs', async () => {
    let fail = true;
    const read = coalescedReader<number, number>(async (keys) => {
      if (fail) throw new Error('database down');
      return new Map(keys.map((k) => [k, k * 2]));
    });
    const results = await Promise.allSettled([read(1), read(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await read(3)).toBe(6);
  });

  it('splits more keys than one query carries into several loads', async () => {
    const sizes: number[] = [];
    const read = coalescedReader<number, number>(async (keys) => {
      sizes.push(keys.length);
      return new Map(keys.map((k) => [k, k]));
    });
    const values = await Promise.all(Array.from({ length: 600 }, (_, i) => read(i)));
    expect(values).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(sizes).toEqual([256, 256, 88]);
  });
});

import { describe, expect, it } from 'vitest';
import { AGAIN, GroupCommit, type Outcome } from '../../../src/platform/concurrency/group-commit.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('GroupCommit', () => {
  it('runs the items of one turn at rest together, and groups the items that arrive while runs are in flight', async () => {
    const runs: number[][] = [];
    const group = new GroupCommit<number, number>(
      async (items) => {
        runs.push(items);
        await tick();
        return items.map((i) => i * 10);
      },
      { maxBatch: 100, parallel: 1, retryAlone: false },
    );
    // one item at rest runs on the next turn of the event loop, alone, with no timer's wait
    expect(await group.submit(0)).toBe(0);
    // submitted in one turn (the requests read from the sockets that were ready): one run
    const first = [1, 2].map((i) => group.submit(i));
    // submitted while that run is in flight: they wait for it, and share the next
    await new Promise((resolve) => setImmediate(resolve));
    const later = [3, 4, 5].map((i) => group.submit(i));
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50]);
    expect(runs).toEqual([[0], [1, 2], [3, 4, 5]]);
  });

  it('sends an AGAIN item to the next run, even when other items were taken meanwhile', async () => {
    let first = true;
    const group = new GroupCommit<string, string>(
      async (items) => {
        await tick();
        return items.map((i): Outcome<string> => {
          if (i === 'a' && first) {
            first = false;
            return AGAIN;
          }
          return `${i}!`;
        });
      },
      // with keys, take() replaces the waiting list while a run is in flight
      { maxBatch: 1, parallel: 2, keyOf: (i) => i, retryAlone: false },
    );
    expect(await Promise.all(['a', 'b', 'c'].map((i) => group.submit(i)))).toEqual(['a!', 'b!', 'c!']);
  });

  it('never puts two items of one key in a run', async () => {
    const runs: string[][] = [];
    const group = new GroupCommit<string, string>(
      async (items) => {
        runs.push(items);
        await tick();
        return items;
      },
      { maxBatch: 10, parallel: 1, keyOf: (i) => i[0]!, retryAlone: false },
    );
    await Promise.all(['x0', 'a1', 'a2', 'b1', 'a3'].map((i) => group.submit(i)));
    for (const run of runs) expect(new Set(run.map((i) => i[0])).size).toBe(run.length);
    expect(runs.flat().sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'x0']);
  });

  it('refuses an item whose outcome is an Error, and retries a failed run item by item', async () => {
    const group = new GroupCommit<number, number>(
      async (items) => {
        await tick();
        if (items.includes(13) && items.length > 1) throw new Error('the shared run failed');
        if (items.includes(13)) throw new Error('13 alone');
        return items.map((i) => (i === 7 ? new Error('seven refused') : i));
      },
      { maxBatch: 10, parallel: 1, retryAlone: true },
    );
    const settled = await Promise.allSettled([1, 2, 7, 13, 5].map((i) => group.submit(i)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      1,
      2,
      'seven refused',
      '13 alone',
      5,
    ]);
  });

  it('fails every item of a failed run when retrying alone is off, and says when it is idle', async () => {
    let idle = 0;
    const group = new GroupCommit<number, void>(
      async () => {
        await tick();
        throw new Error('down');
      },
      { maxBatch: 10, parallel: 1, retryAlone: false, onIdle: () => idle++ },
    );
    const settled = await Promise.allSettled([1, 2, 3].map((i) => group.submit(i)));
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    await tick();
    expect(idle).toBeGreaterThan(0);
  });
});

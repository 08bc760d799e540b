/** The clean-log rule itself: what it takes for a fault, and that the list of fault warnings names real ones. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAULT_WARNINGS, LogWatch } from './log-watch.js';

const line = (level: number, msg: string, err?: string) =>
  `${JSON.stringify({ level, msg, ...(err ? { err: { message: err } } : {}) })}\n`;

describe('LogWatch', () => {
  it('fails on an error line or a fault warning, not on info or a warning about the outside world', () => {
    const logs = new LogWatch('test');
    logs.write(line(30, 'request completed'));
    logs.write(line(40, 'payout submission failed; will retry'));
    logs.write(line(40, 'delivery dispatch failed; retrying'));
    logs.write(`${line(50, 'request failed', 'boom').slice(0, 10)}`); // half a line waits for its end
    expect(logs.takeUnexpected()).toHaveLength(1);
    logs.write(`${line(50, 'request failed', 'boom').slice(10)}not json\n`);
    expect(logs.takeUnexpected()).toEqual([line(50, 'request failed', 'boom').trim()]);
    expect(() => logs.end()).not.toThrow();
  });

  it('lets through what the test declared, by message or by the error’s message, and throws at the end otherwise', () => {
    const logs = new LogWatch('test');
    logs.expect('request failed');
    logs.expect(/relation "x" does not exist/);
    logs.write(line(50, 'request failed'));
    logs.write(line(50, 'webhook health check failed', 'relation "x" does not exist'));
    expect(logs.takeUnexpected()).toEqual([]);
    logs.write(line(60, 'fatal'));
    expect(() => logs.end()).toThrow(/logged 1 fault\(s\) the test did not declare/);
  });

  it('names only warnings the gateway really logs', () => {
    const root = path.resolve(import.meta.dirname, '../../src');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const source = files.map((f) => readFileSync(path.join(root, f), 'utf8')).join('\n');
    for (const message of FAULT_WARNINGS) expect(source, message).toContain(`'${message}'`);
  });
});

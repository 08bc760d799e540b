import { describe, expect, it } from 'vitest';
import { parseHostList } from '../../../src/platform/db/hosts.js';

describe('a connection string with several hosts (libpq form)', () => {
  it('lists every host with its port, and keeps what pg reads from a one-host string', () => {
    const list = parseHostList(
      'postgres://gw:p%40ss@db1:5432,[::1]:5433,db3/gateway?sslmode=disable',
      'read-write',
    );
    expect(list.hosts).toEqual([
      { host: 'db1', port: 5432 },
      { host: '::1', port: 5433 },
      { host: 'db3', port: 5432 },
    ]);
    expect(list.settings).toMatchObject({ user: 'gw', password: 'p@ss', database: 'gateway' });
    expect(list.attrs).toBe('read-write');
  });

  it('takes target_session_attrs from the string, else the caller’s default, and refuses unknown values', () => {
    expect(parseHostList('postgres://u@h1,h2/db?target_session_attrs=any', 'read-write').attrs).toBe('any');
    expect(parseHostList('postgres://u@h1,h2/db', 'prefer-standby').attrs).toBe('prefer-standby');
    expect(() => parseHostList('postgres://u@h1/db?target_session_attrs=fastest', 'read-write')).toThrow(
      /target_session_attrs must be one of/,
    );
  });

  it('reads a one-host string as pg does', () => {
    const list = parseHostList('postgresql://postgres@127.0.0.1:6543/x', 'read-write');
    expect(list.hosts).toEqual([{ host: '127.0.0.1', port: 6543 }]);
    expect(list.settings).toMatchObject({ user: 'postgres', database: 'x' });
    const socket = parseHostList('postgres://gw@localhost/x?host=/var/run/postgresql', 'read-write');
    expect(socket.hosts).toEqual([{ host: '/var/run/postgresql', port: 5432 }]);
  });
});

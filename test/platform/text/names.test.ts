import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { greeting, looksLikeLink, nameForMail, nameProblem } from '../../../src/platform/text/names.js';

/** Names printed into e-mail: plain text, nothing a mail client would make clickable. */
describe('nameProblem', () => {
  it('refuses links however written: schemes, full-width and backslash forms, bare domains, addresses', () => {
    for (const name of [
      'Veja https://example.com/x',
      'Veja www.example.com',
      'Loja http:/\\evil.example',
      'Loja http:\\\\evil',
      'Loja https：//evil', // full-width colon
      'Loja https:／／evil', // full-width slashes
      'Loja ｈｔｔｐｓ://evil', // full-width letters
      'mailto:ana@example.com',
      'javascript:alert(1)',
      'Acesse loja.com',
      'Acesse LOJA.COM.BR',
      'contato@evil.com.br',
      'bit.ly/premio',
      'evil。com', // ideographic full stop
      'evil｡com',
      'Servidor 10.0.0.1',
      'Loja 2001:db8::1',
      'Loja ::1',
      'Loja [fe80::1%eth0]',
      'Loja ::ffff:10.0.0.1',
      'Loja 2001:0db8:85a3:0000:0000:8a2e:0370:7334.',
      'Loja ２００１：ｄｂ８：：１', // full-width
      'Loja ftp :/x',
      'site: xn--80ak6aa92e.com',
      'Loja 0x7f.0.0.1', // IPv4 in hex or octal parts, as a browser reads them
      'Loja 0x7f000001',
      'Loja 0177.0.0.1',
      'Loja 0x7F.1',
      'Loja ０ｘ７ｆ.0.0.1', // full-width
    ]) {
      expect(nameProblem(name), name).toBe('must be plain text: no link, web address or domain name');
      expect(looksLikeLink(name), name).toBe(true);
    }
  });

  it('keeps ordinary names of people and companies', () => {
    for (const name of [
      'Maria da Silva',
      'José D’Ávila',
      'Comércio S.A.',
      'J. R. R. Tolkien',
      'Padaria & Café 2.0',
      'Versão 1.10.3',
      'Lote 007',
      'Sala 0.5',
      'Cliente 0800',
      'Loja: Centro',
      'Plantão 10:30:00',
      'Café::Bar',
      'Ana (Financeiro)',
      'Integração ERP - produção',
      '山田 太郎',
    ]) {
      expect(nameProblem(name), name).toBeNull();
    }
  });

  it('refuses line breaks and invisible characters, and an empty name unless allowed', () => {
    expect(nameProblem('Loja\nFalsa')).toBe('must be one line of printable text');
    expect(nameProblem('Loja\r\nBcc: x')).toBe('must be one line of printable text');
    expect(nameProblem('Lo\u200bja')).toBe('must be one line of printable text');
    expect(nameProblem('Loja\u202egnp.exe')).toBe('must be one line of printable text');
    expect(nameProblem('')).toBe('must not be empty');
    expect(nameProblem('', { allowEmpty: true })).toBeNull();
    expect(nameProblem('x'.repeat(101), { maxLength: 100 })).toBe('must be at most 100 characters');
  });

  it('no accepted name contains a scheme or a dotted domain after folding (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (name) => {
        if (nameProblem(name.trim()) !== null) return;
        const plain = name.normalize('NFKC');
        expect(plain).not.toMatch(/:\s*[/\\]/);
        expect(plain).not.toMatch(/[a-z0-9]\.[a-z]{2,}/i);
      }),
    );
  });
});

describe('names printed in mail', () => {
  it('a stored name that breaks the rules is replaced, not printed', () => {
    expect(nameForMail('ERP', '')).toBe('ERP');
    expect(nameForMail('visite evil.com', 'uma chave')).toBe('uma chave');
    expect(nameForMail(null, 'x')).toBe('x');
    expect(greeting('Ana')).toBe('Olá, Ana.');
    expect(greeting('https://evil')).toBe('Olá.');
    expect(greeting('')).toBe('Olá.');
  });
});

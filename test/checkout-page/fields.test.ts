import { isValidCnpj } from '@brazilian-utils/brazilian-utils/is-valid-cnpj';
import { isValidCpf } from '@brazilian-utils/brazilian-utils/is-valid-cpf';
import { describe, expect, it } from 'vitest';
import { documentMask, isCnpj, isCpf } from '../../checkout-page/src/document';
import { problemOf, showsProblem } from '../../checkout-page/src/fields';
import { centsOf } from '../../checkout-page/src/money';
import { isCpfOrCnpj } from '../../src/platform/text/documents';

describe("the page's checks of the payer's fields", () => {
  it('punctuates a CPF up to 11 digits and a CNPJ past them, as typed', () => {
    expect(documentMask('529')).toBe('529');
    expect(documentMask('5299822')).toBe('529.982.2');
    expect(documentMask('52998224725')).toBe('529.982.247-25');
    expect(documentMask('529.982.247-25x')).toBe('529.982.247-25');
    expect(documentMask('112223330001')).toBe('11.222.333/0001');
    expect(documentMask('11222333000181')).toBe('11.222.333/0001-81');
    expect(documentMask('112223330001819')).toBe('11.222.333/0001-81');
  });

  it('is the gateway’s own check, which agrees with an independent checker (@brazilian-utils) on every document', () => {
    const docs = [
      '52998224725',
      '52998224724',
      '11111111111',
      '11222333000181',
      '11222333000180',
      '00000000000000',
    ];
    for (let n = 0; n < 200; n++) docs.push(String(n * 7919 + 10_000_000_000).slice(0, 11));
    for (let n = 0; n < 200; n++) docs.push(String(n * 104_729 + 10_000_000_000_000).slice(0, 14));
    for (const doc of docs) {
      expect(isCpf(doc), doc).toBe(isValidCpf(doc));
      expect(isCnpj(doc), doc).toBe(isValidCnpj(doc));
      expect(isCpfOrCnpj(doc), doc).toBe(isValidCpf(doc) || isValidCnpj(doc));
    }
  });

  it('says in Portuguese what is wrong, and shows it as soon as the field could be complete', () => {
    expect(problemOf('document', '529.982.247-24', null)).toBe('CPF inválido: confira os números.');
    expect(problemOf('document', '11.222.333/0001-80', null)).toBe('CNPJ inválido: confira os números.');
    expect(problemOf('document', '529.982', null)).toBe('Um CPF tem 11 dígitos; um CNPJ, 14.');
    expect(problemOf('document', '529.982.247-25', null)).toBeNull();
    expect(problemOf('email', 'maria@example', null)).toMatch(/^Confira o e-mail/);
    expect(problemOf('email', ' maria@example.com ', null)).toBeNull();
    expect(problemOf('name', '  ', null)).toBe('Informe seu nome.');
    expect(problemOf('amount', '4,99', { min: 500, max: 1000 })).toBe(
      'O valor deve ser de R$\u00a05,00 a R$\u00a010,00.',
    );
    expect(problemOf('amount', 'dez', { min: 500, max: 1000 })).toBe('Informe o valor, por exemplo 50,00.');
    expect(problemOf('amount', '', null)).toBeNull(); // a fixed amount: nothing to type
    expect(showsProblem('document', '529.982.24', false)).toBe(false);
    expect(showsProblem('document', '529.982.247-24', false)).toBe(true);
    expect(showsProblem('email', 'maria@', false)).toBe(false);
    expect(showsProblem('email', 'maria@example.co', false)).toBe(true);
    expect(showsProblem('name', '', true)).toBe(true);
  });

  it('reads amounts as typed in Brazil', () => {
    expect(centsOf('1.234,56')).toBe(123456);
    expect(centsOf('1234,5')).toBe(123450);
    expect(centsOf('R$ 80')).toBe(8000);
    expect(centsOf('12.34')).toBeNull();
    expect(centsOf('')).toBeNull();
  });
});

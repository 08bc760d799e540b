import { describe, expect, it } from 'vitest';
import { maskPixKey, pixKeyForApi, pixKeyProblem } from '../../panel/src/ui/pix-key.js';

describe('PIX keys as people type them', () => {
  it.each([
    ['(11) 98765-4321', '+5511987654321'],
    ['11 98765 4321', '+5511987654321'],
    ['+55 (11) 98765-4321', '+5511987654321'],
    ['5511987654321', '+5511987654321'],
    ['(11) 3456-7890', '+551134567890'],
    ['+5511987654321', '+5511987654321'],
    ['987654321', '987654321'], // too short: sent as typed, the API says what is wrong
  ])('a phone typed as %s is sent as %s', (typed, sent) => {
    expect(pixKeyForApi('PHONE', typed)).toBe(sent);
  });

  it('sends CPF, CNPJ, e-mail and random keys as typed (the API takes the punctuation), trimmed', () => {
    expect(pixKeyForApi('CPF', ' 529.982.247-25 ')).toBe('529.982.247-25');
    expect(pixKeyForApi('EMAIL', 'loja@example.com')).toBe('loja@example.com');
  });

  it('shows each key as its type is written while it is typed', () => {
    expect(maskPixKey('CPF', '52998224725')).toBe('529.982.247-25');
    expect(maskPixKey('CPF', '5299')).toBe('529.9');
    expect(maskPixKey('CNPJ', '11222333000181')).toBe('11.222.333/0001-81');
    expect(maskPixKey('PHONE', '11987654321')).toBe('(11) 98765-4321');
    expect(maskPixKey('PHONE', '1134567890')).toBe('(11) 3456-7890');
    expect(maskPixKey('PHONE', '+5511987654321')).toBe('+55 (11) 98765-4321');
    expect(maskPixKey('PHONE', '(11) 9')).toBe('(11) 9');
    expect(maskPixKey('PHONE', '')).toBe('');
    expect(maskPixKey('EMAIL', 'Loja@Example.com')).toBe('Loja@Example.com');
    // a key typed under one type and then another: the digits stay, laid out anew
    expect(maskPixKey('CNPJ', maskPixKey('CPF', '11222333000181'))).toBe('11.222.333/000');
  });
});

describe('a PIX key plainly wrong, said in its type’s words before it is sent', () => {
  it.each([
    ['CPF', '123', 'Um CPF tem 11 dígitos: confira a chave PIX.'],
    ['CPF', '529.982.247-25', null],
    ['CNPJ', '11.222.333/0001', 'Um CNPJ tem 14 dígitos: confira a chave PIX.'],
    ['CNPJ', '11.222.333/0001-81', null],
    ['PHONE', '98765-4321', 'Informe o celular com DDD, como (11) 98765-4321: confira a chave PIX.'],
    ['PHONE', '(11) 98765-4321', null],
    ['PHONE', '+55 11 98765-4321', null],
    ['EMAIL', 'x', null],
  ])('%s %s', (type, typed, problem) => {
    expect(pixKeyProblem(type, typed)).toBe(problem);
  });
});

import { describe, expect, it } from 'vitest';
import { ApiError } from '../../panel/src/ui/api-error';
import { fieldMessage, fieldOfMessage, invalidField } from '../../panel/src/ui/field-errors';
import { errorMeaning } from '../../panel/src/ui/labels';

const refusal = (message: string) => new ApiError(400, message, 'VALIDATION_ERROR');

describe('the field a validation message names', () => {
  it.each([
    ['document must be a valid CPF or CNPJ', 'document', 'CPF ou CNPJ inválido: confira os dígitos.'],
    ['customer.document is not a valid CPF', 'customer.document', 'CPF inválido: confira os dígitos.'],
    [
      'phone must be a phone number, like +55 11 98765-4321',
      'phone',
      'Telefone inválido: informe DDD e número, como (11) 98765-4321.',
    ],
    ['"x@" is not an email address', 'email', 'E-mail inválido.'],
    ['password must have at least 8 characters', 'password', 'Use pelo menos 8 caracteres.'],
    [
      'Invalid body/address/zipCode: must match pattern "^\\d{5}-?\\d{3}$"',
      'address.zipCode',
      'Formato inválido.',
    ],
    ["Invalid body: must have required property 'phone'", 'phone', 'Preencha este campo.'],
    ["Invalid body/customer: must have required property 'name'", 'customer.name', 'Preencha este campo.'],
    ['legalName is required', 'legalName', 'Preencha este campo.'],
    ['name holds something new', null, 'Valor não aceito: confira este campo.'],
  ])('%s → %s', (message, path, text) => {
    expect(invalidField(refusal(message))).toBe(path === null ? null : path);
    expect(fieldMessage(refusal(message))).toBe(text);
  });

  it('names no field for a message about the request as a whole, nor for another code', () => {
    expect(fieldOfMessage('the file is empty')).toBeNull();
    expect(
      fieldOfMessage('Invalid body: must NOT have additional properties: "x" is not a field it takes'),
    ).toBeNull();
    expect(invalidField(new ApiError(409, 'document already taken', 'CONFLICT'))).toBeNull();
  });

  it("the form's alert names a field refused by the schema as by the domain", () => {
    expect(errorMeaning('VALIDATION_ERROR', 'Invalid body/address/zipCode: must match pattern "x"')).toBe(
      'Dados inválidos: confira o CEP.',
    );
    expect(errorMeaning('VALIDATION_ERROR', 'document must be a valid CPF or CNPJ')).toBe(
      'Dados inválidos: confira o CPF/CNPJ.',
    );
  });

  it('a period longer than the route takes says its longest', () => {
    // the console's daily report, and the receivables' schedules
    expect(errorMeaning('VALIDATION_ERROR', 'a report covers at most 366 days')).toBe(
      'Período longo demais: escolha no máximo 366 dias.',
    );
    expect(errorMeaning('VALIDATION_ERROR', 'from and to must be at most 366 days apart')).toBe(
      'Período longo demais: escolha no máximo 366 dias.',
    );
  });
});

describe('names the API refuses', () => {
  it('says in Portuguese why a name is not plain text', () => {
    const error = new ApiError(
      400,
      'name must be plain text: no link, web address or domain name',
      'VALIDATION_ERROR',
    );
    expect(invalidField(error)).toBe('name');
    expect(fieldMessage(error)).toBe('Use só texto: sem link, endereço da web ou domínio.');
  });
});

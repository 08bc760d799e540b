// A Brazilian address's state: the 27 federative units (UF), as a boleto, a sign-up and a payer's page take them.

export const UFS: readonly string[] =
  'AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' ');

const SET = new Set(UFS);

export const isUf = (value: string): boolean => SET.has(value);

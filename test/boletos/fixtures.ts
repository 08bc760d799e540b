import { toSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import { CUSTOMER, type SaleBody } from '../sales/fixtures.js';

export const ADDRESS = {
  street: 'Rua das Flores',
  number: '100',
  district: 'Centro',
  city: 'São Paulo',
  state: 'SP',
  zipCode: '01001-000',
};

/** São Paulo's date, `days` from today. */
export function spDay(days = 0): string {
  const today = toSaoPaulo(new Date()).slice(0, 10);
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function boletoInput(overrides: Record<string, unknown> = {}, terms: Record<string, unknown> = {}) {
  return {
    amount: 10000,
    paymentMethod: 'BOLETO',
    customer: { ...CUSTOMER, address: ADDRESS },
    items: [{ title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false }],
    boleto: { dueDate: spDay(3), ...terms },
    ...overrides,
  };
}

export interface BoletoSaleBody extends SaleBody {
  paidAmount: number | null;
  expiresAt: string | null;
  pixQrCode: string;
  boleto: {
    barcode: string;
    digitableLine: string;
    dueDate: string;
    nossoNumero: string;
    pdfUrl: string;
    pixCopyPaste: string;
    pixQrCode: string;
  };
}

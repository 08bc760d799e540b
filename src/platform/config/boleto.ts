import { ConfigError, type Env } from './parse.js';

/** The beneficiary every boleto is issued for (BOLETO_*): the bank account the gateway collects into. */
export interface BoletoSettings {
  bank: string;
  agency: string;
  account: string;
  wallet: string;
  beneficiaryName: string;
  beneficiaryDocument: string;
}

/** Banks whose campo livre the gateway knows (docs/decisions.md, "Boleto"). */
const BANKS = ['237'];

export function boletoSettings(env: Env): BoletoSettings {
  const digits = (name: string, fallback: string, length: number): string => {
    const value = env[name] || fallback;
    if (!new RegExp(`^\\d{1,${length}}$`).test(value))
      throw new ConfigError(`${name} must be at most ${length} digits, got "${value}"`);
    return value.padStart(length, '0');
  };
  const bank = env.BOLETO_BANK || '237';
  if (!BANKS.includes(bank))
    throw new ConfigError(`BOLETO_BANK must be one of ${BANKS.join(', ')}, got "${bank}"`);
  const document = (env.BOLETO_BENEFICIARY_DOCUMENT || '11222333000181').replace(/\D/g, '');
  if (!/^(\d{11}|\d{14})$/.test(document))
    throw new ConfigError('BOLETO_BENEFICIARY_DOCUMENT must be a CPF (11 digits) or CNPJ (14 digits)');
  return {
    bank,
    agency: digits('BOLETO_AGENCY', '1234', 4),
    account: digits('BOLETO_ACCOUNT', '12345', 7),
    wallet: digits('BOLETO_WALLET', '9', 2),
    beneficiaryName: env.BOLETO_BENEFICIARY_NAME || 'GATEWAY DE PAGAMENTOS LTDA',
    beneficiaryDocument: document,
  };
}

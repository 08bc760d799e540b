import { formatReais } from '../platform/money/money.js';

/**
 * The Pix BR Code (EMV® QRCPS merchant-presented mode), as laid out in the Central Bank's "Manual de Padrões
 * para Iniciação do Pix": ID 00 format "01", 01 "12" (dynamic: used once), 26 merchant account (GUI
 * br.gov.bcb.pix + 01 the key for a static code, or 25 the PSP's location URL without scheme for a dynamic
 * one), 52 MCC "0000", 53 currency 986, 54 amount, 58 "BR", 59 name (≤25), 60 city (≤15), 62 additional data
 * (05 txid, "***" for a dynamic code), 63 CRC16-CCITT-FALSE over everything up to and including "6304".
 */
export type BrCodeInput = { merchantName: string; merchantCity: string; amountCents?: number } & (
  | { kind: 'static'; pixKey: string; txid?: string }
  | { kind: 'dynamic'; location: string }
);

const field = (id: string, value: string): string => {
  if (value.length > 99) throw new Error(`BR Code field ${id} longer than 99 characters`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
};

/** Only the EMV "ans" set is safe in names and cities: accents dropped, other characters removed. */
function plain(text: string, max: number): string {
  const ascii = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 .,-]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return (ascii || 'NA').slice(0, max);
}

export function brCode(input: BrCodeInput): string {
  const account =
    input.kind === 'static'
      ? field('00', 'br.gov.bcb.pix') + field('01', input.pixKey)
      : field('00', 'br.gov.bcb.pix') + field('25', input.location.replace(/^https?:\/\//, ''));
  const txid = input.kind === 'static' ? (input.txid ?? '***') : '***';
  const payload =
    field('00', '01') +
    (input.kind === 'dynamic' ? field('01', '12') : '') +
    field('26', account) +
    field('52', '0000') +
    field('53', '986') +
    (input.amountCents !== undefined ? field('54', formatReais(input.amountCents)) : '') +
    field('58', 'BR') +
    field('59', plain(input.merchantName, 25)) +
    field('60', plain(input.merchantCity, 15)) +
    field('62', field('05', txid)) +
    '6304';
  return payload + crc16(payload);
}

/** CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF), four upper-case hex digits. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** True when the last four characters are the CRC of everything before them (ending in "6304"). */
export function hasValidCrc(code: string): boolean {
  return /6304[0-9A-F]{4}$/.test(code) && crc16(code.slice(0, -4)) === code.slice(-4);
}

import { AppError, validation } from '../platform/errors/app-error.js';

export const MAX_FILES = 10;
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
export const MAX_TEXT_CHARS = 5000;

export type EvidenceType = 'application/pdf' | 'image/png' | 'image/jpeg';

export interface EvidenceFile {
  name: string;
  content: Buffer;
}

export interface SniffedFile {
  name: string;
  contentType: EvidenceType;
  content: Buffer;
}

const SIGNATURES: [EvidenceType, number[]][] = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]], // %PDF-
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
];

/** A file's type by its first bytes; the name and the declared type are the sender's word and are not read. */
export function sniffType(content: Buffer): EvidenceType | null {
  for (const [type, magic] of SIGNATURES) {
    if (content.length >= magic.length && magic.every((b, i) => content[i] === b)) return type;
  }
  return null;
}

/** A file name as stored and shown: no path, no control characters, at most 200 characters. */
function cleanName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  const name = base
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .trim()
    .slice(0, 200);
  return name === '' ? 'arquivo' : name;
}

/** Checks a whole answer before anything is stored: counts, sizes, types by content, the text's length. */
export function checkEvidence(files: EvidenceFile[], text: string | null): SniffedFile[] {
  if (files.length > MAX_FILES) throw validation(`at most ${MAX_FILES} files per answer`);
  if (text !== null && [...text].length > MAX_TEXT_CHARS) {
    throw validation(`text must be at most ${MAX_TEXT_CHARS} characters`);
  }
  if (files.length === 0 && (text === null || text.trim() === '')) {
    throw validation('send at least one file or a text');
  }
  return files.map((f) => {
    const name = cleanName(f.name);
    if (f.content.length === 0) throw validation(`${name} is empty`);
    if (f.content.length > MAX_FILE_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${name} is larger than 5 MB`);
    }
    const contentType = sniffType(f.content);
    if (!contentType) throw new AppError('UNSUPPORTED_FILE_TYPE', `${name} is not a PDF, PNG or JPEG file`);
    return { name, contentType, content: f.content };
  });
}

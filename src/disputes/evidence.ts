import { AppError, validation } from '../platform/errors/app-error.js';
import { type DocumentType, sniffType } from '../platform/files/sniff.js';

export const MAX_FILES = 10;
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
export const MAX_TEXT_CHARS = 5000;

export type EvidenceType = DocumentType;

/** A file of an answer as it arrives, read whole (at most one byte past MAX_FILE_BYTES, so that more is seen). */
export interface EvidenceFile {
  name: string;
  content: Buffer;
}

/** One part of an answer, in the order it arrives: a file, or the text. */
export type EvidencePart = ({ kind: 'file' } & EvidenceFile) | { kind: 'text'; text: string };

export interface SniffedFile {
  name: string;
  contentType: EvidenceType;
  content: Buffer;
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

/** The `index`th file of an answer (from 1), checked before it is stored: count, size, type by content. */
export function checkFile(file: EvidenceFile, index: number): SniffedFile {
  if (index > MAX_FILES) throw validation(`at most ${MAX_FILES} files per answer`);
  const name = cleanName(file.name);
  if (file.content.length === 0) throw validation(`${name} is empty`);
  if (file.content.length > MAX_FILE_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `${name} is larger than 5 MB`);
  }
  const contentType = sniffType(file.content);
  if (!contentType) throw new AppError('UNSUPPORTED_FILE_TYPE', `${name} is not a PDF, PNG or JPEG file`);
  return { name, contentType, content: file.content };
}

/** The answer's text: at most one, of at most MAX_TEXT_CHARS characters. */
export function checkText(text: string, earlier: string | null): string {
  if (earlier !== null) throw validation('send one text field');
  if ([...text].length > MAX_TEXT_CHARS)
    throw validation(`text must be at most ${MAX_TEXT_CHARS} characters`);
  return text;
}

/** What an answer must hold once every part has arrived. */
export function checkComplete(files: number, text: string | null): void {
  if (files === 0 && (text === null || text.trim() === '')) {
    throw validation('send at least one file or a text');
  }
}

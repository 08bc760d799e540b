/** The file types people send as proof (dispute evidence, onboarding documents). */
export type DocumentType = 'application/pdf' | 'image/png' | 'image/jpeg';

const SIGNATURES: [DocumentType, number[]][] = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]], // %PDF-
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
];

/** A file's type by its first bytes; the name and the declared type are the sender's word and are not read. */
export function sniffType(content: Buffer): DocumentType | null {
  for (const [type, magic] of SIGNATURES) {
    if (content.length >= magic.length && magic.every((b, i) => content[i] === b)) return type;
  }
  return null;
}

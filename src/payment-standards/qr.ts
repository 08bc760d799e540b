import QRCode from 'qrcode';

/** The BR Code as an SVG QR code data URI (error correction M, as the BR Code manual recommends). */
export async function qrSvgDataUri(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

/** The BR Code's QR modules (error correction M, no quiet zone): `size` × `size`, `dark(row, col)`. */
export function qrModules(text: string): { size: number; dark: (row: number, col: number) => boolean } {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return { size: modules.size, dark: (row, col) => Boolean(modules.get(row, col)) };
}

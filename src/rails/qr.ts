import QRCode from 'qrcode';

/** The BR Code as an SVG QR code data URI (error correction M, as the BR Code manual recommends). */
export async function qrSvgDataUri(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

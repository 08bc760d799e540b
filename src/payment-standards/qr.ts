type QrLibrary = typeof import('qrcode');

let library: Promise<QrLibrary> | undefined;
/** The QR library, loaded by the first QR drawn (the process carries it only once a charge or a PDF needs it). */
function qrcode(): Promise<QrLibrary> {
  library ??= import('qrcode').then((m) => ((m as { default?: QrLibrary }).default ?? m) as QrLibrary);
  return library;
}

/** The BR Code as an SVG QR code data URI (error correction M, as the BR Code manual recommends). */
export async function qrSvgDataUri(text: string): Promise<string> {
  const QRCode = await qrcode();
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

/** The BR Code's QR modules (error correction M, no quiet zone): `size` × `size`, `dark(row, col)`. */
export async function qrModules(
  text: string,
): Promise<{ size: number; dark: (row: number, col: number) => boolean }> {
  const { modules } = (await qrcode()).create(text, { errorCorrectionLevel: 'M' });
  return { size: modules.size, dark: (row, col) => Boolean(modules.get(row, col)) };
}

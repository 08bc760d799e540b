import { CopyButton } from './CopyButton';

/** A Pix to pay: its QR code, and its copy-and-paste code with a copy button (a Pix charge's, a boleto's). */
export function PixCode(props: {
  id: string;
  qrCode: string;
  copyPaste: string;
  alt: string;
  size: number;
  rows: number;
}) {
  return (
    <>
      <img class="qr" src={props.qrCode} alt={props.alt} width={props.size} height={props.size} />
      <label for={props.id}>Código Pix copia e cola</label>
      <textarea id={props.id} readOnly rows={props.rows} value={props.copyPaste} />
      <CopyButton text={props.copyPaste} field={props.id} label="Copiar código Pix" done="Código copiado" />
    </>
  );
}

import { randomBytes } from 'node:crypto';

/** What the local PSP keeps in memory: charges, received Pix, refunds, registered webhooks and tokens. */
export interface Cob {
  txid: string;
  valor: string;
  chave: string;
  expiracao: number;
  criacao: string;
  location: string;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
}

export interface Devolucao {
  id: string;
  rtrId: string;
  valor: string;
  /** ORIGINAL (default), RETIRADA, MED_OPERACIONAL, MED_FRAUDE: a MED's devolução is made by the PSP itself. */
  natureza?: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
}

export interface ReceivedPix {
  endToEndId: string;
  /** Absent for a Pix sent to the key without a charge. */
  txid?: string;
  valor: string;
  horario: string;
  devolucoes: Devolucao[];
}

export interface Exchange {
  method: string;
  /** The route as the yaml writes it, e.g. /cob/{txid}. */
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}

/** A Pix sent through Efí's send API (PUT /v3/gn/pix/{idEnvio}), as the local PSP keeps it. */
export interface PixSend {
  idEnvio: string;
  e2eId: string;
  valor: string;
  pagador: { chave: string };
  favorecido: { chave: string };
  horario: { solicitacao: string; liquidacao?: string };
  status: 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';
}

export class PspState {
  /** Pix sent through the payout API, by idEnvio (one send per id: a repeated id is refused). */
  readonly sends = new Map<string, PixSend>();
  readonly cobs = new Map<string, Cob>();
  readonly pix = new Map<string, ReceivedPix>();
  /** Pix key → webhook URL registered with PUT /webhook/{chave}. */
  readonly webhooks = new Map<string, string>();
  /** access token → expiry (ms since epoch). */
  readonly tokens = new Map<string, number>();
  tokensIssued = 0;
  /** Requests seen, "METHOD path", in order (tests read it). */
  readonly log: string[] = [];
  /** The page (`paginacao.paginaAtual`) of every GET /pix answered, in order. */
  readonly pixPages: number[] = [];
  /** Every answered request of the standard API, for checking both sides against the yaml. */
  readonly exchanges: Exchange[] = [];
}

/** E + 8-digit ISPB + yyyyMMddHHmm + 11 alphanumerics: 32 characters, as the standard's EndToEndId. */
export function newEndToEndId(prefix: 'E' | 'D'): string {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 12);
  return `${prefix}99999999${stamp}${randomBytes(8).toString('hex').slice(0, 11)}`;
}

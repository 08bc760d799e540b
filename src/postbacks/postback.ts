import { postbackHeaders } from './signing.js';

export interface OutboundRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * A per-sale postback attempt: the fact's stored postback body, exactly, to its postbackUrl, signed with the
 * operator's postback secret. It is delivered by the webhook engine (a delivery row with no webhook), so it
 * follows the same retry, timeout, SSRF and logging rules.
 */
export function postbackRequest(postbackSecret: string, url: string, body: string): OutboundRequest {
  return { url, body, headers: postbackHeaders(postbackSecret, body) };
}

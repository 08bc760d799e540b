/**
 * Bearer secrets that travel in URLs, and their removal from every log line (docs/security.md, "Secrets in
 * URLs"). Whoever holds one of these URLs may act on it, so a log reader must never see one:
 *
 * - `/billing/<token>` and `/api/public/billing/<token>/…`: the subscriber's page (change the card, cancel);
 * - `/checkout/<id>`, `/api/public/checkout/<id>/…` and `/api/checkout/sessions/<id>`: a checkout session's id
 *   is its payer page's address (the payer's prefilled data, paying);
 * - `/api/boletos/<token>.pdf`: the payer's boleto (name, document, address);
 * - `#/convite/<token>` and `#/nova-senha/<token>` (panel and console invitations, password resets): a fragment
 *   never reaches a server from a browser, but a link pasted elsewhere may; any URL's fragment is dropped;
 * - query parameters named like credentials (`token`, `key`, `secret`, `password`, `code`, `signature`, `auth`,
 *   `session`, …, with any prefix: `X-Api-Private-Key`), and any parameter whose value is a private key (`sk_…`)
 *   or a webhook secret (`whsec_…`): keys sent as query parameters are refused, and still never logged.
 *
 * The secret part is replaced by `[redacted]`; the rest of the URL stays, so a line still says which route was
 * asked. Matching ignores case (a mistyped `/Billing/<token>` is answered 404 and is still a token) and
 * percent-encoding (`/%62illing/<token>`).
 */
const SECRET_SEGMENT =
  /((?:\/api\/checkout\/sessions|\/api\/public\/billing|\/api\/public\/checkout|\/api\/boletos|(?<!\/api)\/billing|(?<!\/api)\/checkout)\/|#\/(?:convite|nova-senha)\/)([^/?#\s"'`<>\\]+)/gi;
const SECRET_QUERY =
  /([?&;](?:[\w.-]*(?:token|key|secret|password|passwd|pass|credential|credentials|session|csrf|auth|authorization|bearer)|code|otp|signature|sig|sk|invite|invitation)=)([^&#\s"'`<>]*)/gi;
/** A parameter of any name whose value is one of the gateway's own secrets (a private key, a webhook secret). */
const SECRET_VALUE = /([?&;][^=&#\s"'`<>]*=)((?:sk|whsec)_[^&#\s"'`<>]*)/gi;
/** Cheap first look: most lines name no such route, and pass untouched. */
const MAYBE = /billing|checkout|boletos|convite|nova-senha|[?#&;%]/i;

export const REDACTED = '[redacted]';

/** Free text (a message, an error's message or stack) with any secret of a URL in it replaced. */
export function redactUrlSecrets(text: string): string {
  if (!MAYBE.test(text)) return text;
  return text
    .replace(SECRET_SEGMENT, (_m, prefix: string) => `${prefix}${REDACTED}`)
    .replace(SECRET_QUERY, (_m, name: string) => `${name}${REDACTED}`)
    .replace(SECRET_VALUE, (_m, name: string) => `${name}${REDACTED}`);
}

/** A request's URL as it may be logged: its secrets replaced, its fragment dropped. */
export function redactUrl(url: string): string {
  if (!MAYBE.test(url)) return url;
  let text = url;
  if (text.includes('%')) {
    // read as the router reads it, so an encoded letter hides nothing
    // (white space encoded again: a value such as "Bearer%20<token>" stays one value, redacted whole)
    const decoded = safeDecode(text).replace(/\s/g, (c) => encodeURIComponent(c));
    if (redactUrlSecrets(decoded) !== decoded) text = decoded;
  }
  const hash = text.indexOf('#');
  if (hash >= 0) text = `${text.slice(0, hash)}#${REDACTED}`;
  return redactUrlSecrets(text);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
}

/** pino's `formatters.log`: a line's `url` (the access line, `incoming request`) is logged redacted. */
export function redactUrlField(object: Record<string, unknown>): Record<string, unknown> {
  const url = object.url;
  if (typeof url !== 'string') return object;
  const redacted = redactUrl(url);
  return redacted === url ? object : { ...object, url: redacted };
}

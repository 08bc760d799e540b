/** How deep a request body's JSON may nest. The deepest body this API documents nests 4 levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * True when JSON text nests objects and arrays deeper than `limit`. One pass over the text, outside strings,
 * before JSON.parse builds anything: a body nested 50,000 levels deep is refused without being materialised
 * (and without the recursion of whatever walks it afterwards).
 */
export function exceedsDepth(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** A `\uD800`–`\uDFFF` escape: the only way JSON text decoded from UTF-8 can carry a UTF-16 surrogate alone. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * True when a parsed JSON value holds a string (or key) with a UTF-16 surrogate that is not half of a pair:
 * not text in any encoding (PostgreSQL refuses it in json, a URL encoder throws). Walks only bodies whose text
 * has a surrogate escape at all; the depth was bounded before parsing.
 */
export function hasLoneSurrogate(text: string, value: unknown): boolean {
  if (!SURROGATE_ESCAPE.test(text)) return false;
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return LONE_SURROGATE.test(v);
    if (Array.isArray(v)) return v.some(walk);
    if (v !== null && typeof v === 'object') {
      return Object.entries(v).some(([k, x]) => LONE_SURROGATE.test(k) || walk(x));
    }
    return false;
  };
  return walk(value);
}

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

/** How deep a request body's JSON may nest. The deepest body this API documents nests 4 levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * One pass over JSON text, outside strings, before JSON.parse builds anything: -1 when it nests objects and
 * arrays deeper than `limit` (a body nested 50,000 levels deep is refused without being materialised, and
 * without the recursion of whatever walks it afterwards), else the number of object members it holds (its
 * `:` outside strings), which keysInText compares with the parsed value to find a repeated key.
 */
export function scanJson(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 58) members++;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return -1;
    } else if (c === 125 || c === 93) depth--;
  }
  return members;
}

/**
 * The object members of a parsed JSON value (its depth already bounded). JSON.parse keeps the last of repeated
 * keys, so a value holding fewer members than its text (scanJson) had a key written twice in one object.
 */
export function parsedMembers(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const v of value) n += parsedMembers(v);
    return n;
  }
  const keys = Object.keys(value);
  n += keys.length;
  for (const k of keys) n += parsedMembers((value as Record<string, unknown>)[k]);
  return n;
}

/**
 * The first key written twice in one object of valid JSON text (as decoded: `"a"` and `"\u0061"` are the same
 * key), or null. Slower than the count above (a set per object): run only once the count says there is one,
 * to name it.
 */
export function repeatedKey(text: string): string | null {
  const objects: Set<string>[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123) objects.push(new Set());
    else if (c === 125) objects.pop();
    else if (c === 34) {
      const start = i;
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text.charCodeAt(j) !== 58) continue; // a value, not a key
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      const keys = objects[objects.length - 1];
      if (keys?.has(key)) return key;
      keys?.add(key);
    }
  }
  return null;
}

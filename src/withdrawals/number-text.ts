/**
 * The literal text of every number that is a direct member of the top-level object, e.g.
 * `{"amount": 100.10}` → amount → "100.10". Runs on text JSON.parse already accepted.
 */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function topLevelNumberTexts(json: string): Map<string, string> {
  const out = new Map<string, string>();
  let depth = 0;
  let key: string | undefined;
  let inValue = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c === '"') {
      const end = stringEnd(json, i);
      if (depth === 1 && !inValue) key = JSON.parse(json.slice(i, end + 1)) as string;
      i = end;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (depth === 1 && c === ':') inValue = true;
    else if (depth === 1 && c === ',') inValue = false;
    else if (depth === 1 && inValue && key !== undefined && (c === '-' || (c >= '0' && c <= '9'))) {
      NUMBER.lastIndex = i; // sticky: the whole literal from here, however long, never a tail of it
      const m = NUMBER.exec(json);
      if (m) {
        out.set(key, m[0]);
        i += m[0].length - 1;
      }
    }
  }
  return out;
}

function stringEnd(json: string, start: number): number {
  let j = start + 1;
  while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
  return j;
}

/**
 * Duplicate keys in a JSON body, for every body the server reads (the API's and the agents'
 * reports). JSON.parse keeps the last of two equal keys, and a reviver sees only the parsed object,
 * so `{"role":"VIEWER","role":"ADMIN"}` would reach a route as ADMIN while a proxy, a log or a WAF
 * in front may have read VIEWER. Names are compared after decoding escapes (`"a"` and `"\u0061"`
 * are the same key).
 */

/**
 * The path of the first key given twice in one object of `text`, or null. `value` is what
 * JSON.parse made of `text`: the exact scan runs only when a quick count of the text's key tokens
 * leaves room for a duplicate (the usual body has none, and a report is the hot path).
 */
export function duplicateKeyIn(text: string, value: unknown): string | null {
  return keyTokensAtMost(text, countKeys(value)) ? null : duplicateKey(text);
}

/** Member names of every object in a parsed value (iterative: nesting depth costs no stack). */
function countKeys(value: unknown): number {
  let keys = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item)) {
      for (const element of item) if (element !== null && typeof element === 'object') pending.push(element);
    } else {
      // own keys only: an inherited enumerable property must not raise the count
      for (const key of Object.keys(item)) {
        keys += 1;
        const member = (item as Record<string, unknown>)[key];
        if (member !== null && typeof member === 'object') pending.push(member);
      }
    }
  }
  return keys;
}

/**
 * Whether `text` (valid JSON) has at most `limit` places where a quote is followed
 * by a colon. Every member name in the text ends that way (a string inside a value
 * may too), so with at most as many as JSON.parse kept, no name occurred twice.
 * Colons are found with indexOf (native, ~2× faster than a regular expression
 * over a report), then the blanks before each are skipped back to a quote or not.
 */
function keyTokensAtMost(text: string, limit: number): boolean {
  let tokens = 0;
  for (let colon = text.indexOf(':'); colon !== -1; colon = text.indexOf(':', colon + 1)) {
    let before = colon - 1;
    while (isBlank(text.charCodeAt(before))) before -= 1;
    if (text.charCodeAt(before) === 0x22 && ++tokens > limit) return false;
  }
  return true;
}

/** JSON's white space: space, tab, line feed, carriage return. */
function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

interface Frame {
  keys: Set<string> | null; // null: an array
  key: string;
  index: number;
}

/**
 * The path (`reports.0.metrics.1.value`) of the first key that appears twice in
 * one object, or null. JSON.parse silently keeps the last one, which would let
 * a body mean something other than what it says. `text` must be valid JSON.
 */
export function duplicateKey(text: string): string | null {
  const stack: Frame[] = [];
  let expectKey = false;
  // jump from one structural character to the next: numbers, literals and blanks are skipped natively
  const structural = /["{}[\],]/g;
  for (let match = structural.exec(text); match; match = structural.exec(text)) {
    const i = match.index;
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (isEscaped(text, end)) end = text.indexOf('"', end + 1);
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const slice = text.slice(i + 1, end);
        const key = slice.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : slice;
        if (top.keys.has(key)) return [...stack.slice(0, -1).map((f) => (f.keys ? f.key : f.index)), key].join('.');
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      structural.lastIndex = end + 1;
    } else if (c === 0x7b) {
      stack.push({ keys: new Set(), key: '', index: 0 });
      expectKey = true;
    } else if (c === 0x5b) {
      stack.push({ keys: null, key: '', index: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index += 1;
    }
  }
  return null;
}

/** Whether the quote at `at` is preceded by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let j = at - 1; text.charCodeAt(j) === 0x5c; j--) backslashes += 1;
  return backslashes % 2 === 1;
}

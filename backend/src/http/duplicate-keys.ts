/**
 * Duplicate keys in a JSON body. JSON.parse keeps the last of two equal keys, and a reviver sees
 * only the parsed object, so `{"role":"VIEWER","role":"ADMIN"}` would reach a route as ADMIN while
 * a proxy, a log or a WAF in front may have read VIEWER. This walks the text once more (it runs
 * only on text JSON.parse accepted, so it need not check the grammar) and names the first key an
 * object holds twice, after decoding escapes (`"a"` and `"\u0061"` are the same key).
 */
type Frame =
  { kind: 'object'; path: string; keys: Set<string>; key: string } | { kind: 'array'; path: string; index: number };

const join = (path: string, part: string) => (path ? `${path}.${part}` : part);
const JSON_WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** The path of the first key given twice in one object of `text` (valid JSON), or null. */
export function duplicateKey(text: string): string | null {
  const stack: Frame[] = [];
  const childPath = (): string => {
    const top = stack.at(-1);
    if (!top) return '';
    return join(top.path, top.kind === 'object' ? top.key : String(top.index));
  };
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      let end = at + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      let next = end + 1;
      while (JSON_WHITESPACE.has(text[next] ?? '')) next++;
      const top = stack.at(-1);
      if (top?.kind === 'object' && text[next] === ':') {
        const key = JSON.parse(text.slice(at, end + 1)) as string;
        if (top.keys.has(key)) return join(top.path, key);
        top.keys.add(key);
        top.key = key;
      }
      at = end;
    } else if (char === '{') stack.push({ kind: 'object', path: childPath(), keys: new Set(), key: '' });
    else if (char === '[') stack.push({ kind: 'array', path: childPath(), index: 0 });
    else if (char === '}' || char === ']') stack.pop();
    else if (char === ',') {
      const top = stack.at(-1);
      if (top?.kind === 'array') top.index += 1;
    }
  }
  return null;
}

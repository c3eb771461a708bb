/**
 * The members of the JSON object at the start of `text` (after whitespace), each with the extent of its
 * value's text, without parsing the values: the cache file reads its header values one by one and keeps
 * each page's entry as its text (see packed-pages.ts), so a 30 000-page cache never exists as one tree of
 * objects. Only the structure is checked here (strings, nesting, separators, nothing after the object); a
 * value's own syntax is checked when it is parsed.
 *
 * @throws {SyntaxError} when the text is not one JSON object.
 */
export function scanObject(
  text: string,
  from = 0,
): { members: Array<[key: string, start: number, end: number]>; end: number } {
  const members: Array<[string, number, number]> = [];
  let at = skipSpace(text, from);
  expect(text, at, '{');
  at = skipSpace(text, at + 1);
  if (text[at] === '}') return { members, end: at + 1 };
  for (;;) {
    expect(text, at, '"');
    const keyEnd = skipString(text, at);
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    at = skipSpace(text, keyEnd);
    expect(text, at, ':');
    const start = skipSpace(text, at + 1);
    const end = skipValue(text, start);
    members.push([key, start, end]);
    at = skipSpace(text, end);
    if (text[at] === ',') {
      at = skipSpace(text, at + 1);
      continue;
    }
    expect(text, at, '}');
    return { members, end: at + 1 };
  }
}

/** {@link scanObject} of a whole text: nothing but whitespace may follow the object. */
export function scanDocument(text: string): Array<[key: string, start: number, end: number]> {
  const { members, end } = scanObject(text);
  if (skipSpace(text, end) !== text.length) throw new SyntaxError(`unexpected text at ${end}`);
  return members;
}

function expect(text: string, at: number, char: string): void {
  if (text[at] !== char) throw new SyntaxError(`expected \`${char}\` at ${at}`);
}

function skipSpace(text: string, at: number): number {
  let index = at;
  for (;;) {
    const code = text.charCodeAt(index);
    // space, tab, line feed, carriage return
    if (code === 32 || code === 9 || code === 10 || code === 13) index++;
    else return index;
  }
}

/** The end (after the closing quote) of the string whose opening quote is at `at`. */
function skipString(text: string, at: number): number {
  let index = at + 1;
  for (;;) {
    const quote = text.indexOf('"', index);
    if (quote < 0) throw new SyntaxError(`unterminated string at ${at}`);
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    index = quote + 1;
  }
}

/** The end of the value that starts at `at`: a string, an object or array (nested), or a literal. */
function skipValue(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return skipString(text, at);
  if (first === '{' || first === '[') {
    // Closing brackets expected, innermost last (char codes: `}` 125, `]` 93).
    const closers: number[] = [];
    let index = at;
    while (index < text.length) {
      const code = text.charCodeAt(index);
      if (code === 34) {
        index = skipString(text, index);
        continue;
      }
      if (code === 123) closers.push(125);
      else if (code === 91) closers.push(93);
      else if (code === 125 || code === 93) {
        if (closers.pop() !== code) throw new SyntaxError(`unexpected \`${text[index]}\` at ${index}`);
        if (closers.length === 0) return index + 1;
      }
      index++;
    }
    throw new SyntaxError(`unterminated value at ${at}`);
  }
  let index = at;
  while (index < text.length && !/[\s,}\]]/.test(text[index] as string)) index++;
  if (index === at) throw new SyntaxError(`expected a value at ${at}`);
  return index;
}

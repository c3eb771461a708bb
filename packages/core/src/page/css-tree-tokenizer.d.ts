// css-tree ships no type declarations; this is the one function core uses (CSS Syntax Level 3 tokenizer).
declare module 'css-tree/tokenizer' {
  /** Calls `onToken` with each token's type (css-tree's numbering) and its [start, end) offsets in `source`. */
  export function tokenize(source: string, onToken: (type: number, start: number, end: number) => void): void;
}

/**
 * The cache's pages in memory, each entry kept as its JSON text (one one-byte string per page, about the
 * size it has in the file) instead of a tree of objects and strings: measured on a 10 000-page site the
 * object form held about 3.5 KB per page on the heap against 1.1 KB in the file, and it was what made a
 * run's memory grow with the site. An entry is parsed when it is read — once per page per run — and the
 * cache file is written from the texts as they are.
 *
 * A `Map` to its users: `get` returns a fresh object (changing it changes nothing until `set`).
 */
export class PackedPages<Entry> implements Map<string, Entry> {
  readonly #texts = new Map<string, string>();

  get size(): number {
    return this.#texts.size;
  }

  get [Symbol.toStringTag](): string {
    return 'PackedPages';
  }

  get(path: string): Entry | undefined {
    const text = this.#texts.get(path);
    return text === undefined ? undefined : (JSON.parse(text) as Entry);
  }

  /** The entry's JSON text, as the cache file holds it. */
  text(path: string): string | undefined {
    return this.#texts.get(path);
  }

  /** Keep `text` as the entry of `path`, as it is: the caller has checked that it parses to an entry. */
  setText(path: string, text: string): this {
    this.#texts.set(path, text);
    return this;
  }

  set(path: string, entry: Entry): this {
    this.#texts.set(path, JSON.stringify(entry));
    return this;
  }

  has(path: string): boolean {
    return this.#texts.has(path);
  }

  delete(path: string): boolean {
    return this.#texts.delete(path);
  }

  clear(): void {
    this.#texts.clear();
  }

  keys(): MapIterator<string> {
    return this.#texts.keys();
  }

  *values(): MapIterator<Entry> {
    for (const text of this.#texts.values()) yield JSON.parse(text) as Entry;
  }

  *entries(): MapIterator<[string, Entry]> {
    for (const [path, text] of this.#texts) yield [path, JSON.parse(text) as Entry];
  }

  [Symbol.iterator](): MapIterator<[string, Entry]> {
    return this.entries();
  }

  forEach(callback: (value: Entry, key: string, map: Map<string, Entry>) => void, thisArg?: unknown): void {
    for (const [path, entry] of this.entries()) callback.call(thisArg, entry, path, this);
  }
}

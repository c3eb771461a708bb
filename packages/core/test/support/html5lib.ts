// Reading html5lib-style tree-construction tests (`.dat`) and dumping our parse trees in their format
// (tree-construction/README.md of html5lib-tests), so the canonical parser can be checked against them.
import type { DefaultTreeAdapterTypes } from 'parse5';
import { isProcessingInstruction } from '../../src/page/html-parser.js';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

/** One test of a `.dat` file. */
export interface TreeTest {
  /** `file.dat #n` (1-based), to name a failing test. */
  name: string;
  data: string;
  /** The `#document-fragment` context, when the test parses a fragment. */
  fragment?: string;
  /** `on`, `off`, or undefined when the test holds for both. */
  scripting?: 'on' | 'off';
  /** The expected tree, one `| …` line per node. */
  document: string;
}

/** Split a `.dat` file into its tests. */
export function readTreeTests(file: string, text: string): TreeTest[] {
  const tests: TreeTest[] = [];
  const blocks = text.split(/\n(?=#data\n)/);
  for (const block of blocks) {
    if (!block.startsWith('#data\n')) continue;
    const sections = new Map<string, string[]>();
    let current: string[] = [];
    for (const line of block.split('\n')) {
      if (/^#(data|errors|new-errors|document-fragment|document|script-on|script-off)$/.test(line)) {
        current = [];
        sections.set(line.slice(1), current);
      } else current.push(line);
    }
    const document = (sections.get('document') ?? []).join('\n').replace(/\n+$/, '');
    const fragment = sections.get('document-fragment')?.[0];
    tests.push({
      name: `${file} #${tests.length + 1}`,
      data: (sections.get('data') ?? []).join('\n'),
      ...(fragment === undefined ? {} : { fragment }),
      ...(sections.has('script-on') ? { scripting: 'on' as const } : {}),
      ...(sections.has('script-off') ? { scripting: 'off' as const } : {}),
      document,
    });
  }
  return tests;
}

const NS_PREFIX: Record<string, string> = {
  'http://www.w3.org/2000/svg': 'svg ',
  'http://www.w3.org/1998/Math/MathML': 'math ',
};
const ATTRIBUTE_NS_PREFIX: Record<string, string> = {
  'http://www.w3.org/1999/xlink': 'xlink ',
  'http://www.w3.org/XML/1998/namespace': 'xml ',
  'http://www.w3.org/2000/xmlns/': 'xmlns ',
};

/** The tree under `root` in the `| …` format of html5lib-tests. */
export function dumpTree(root: DefaultTreeAdapterTypes.ParentNode): string {
  const lines: string[] = [];
  const walk = (nodes: Node[], depth: number) => {
    const pad = `| ${'  '.repeat(depth)}`;
    for (const node of nodes) {
      if (isProcessingInstruction(node)) {
        lines.push(`${pad}<?${node.target} ${node.data}?>`);
        continue;
      }
      switch (node.nodeName) {
        case '#text':
          lines.push(`${pad}"${(node as DefaultTreeAdapterTypes.TextNode).value}"`);
          continue;
        case '#comment':
          lines.push(`${pad}<!-- ${(node as DefaultTreeAdapterTypes.CommentNode).data} -->`);
          continue;
        case '#documentType': {
          const doctype = node as DefaultTreeAdapterTypes.DocumentType;
          const ids =
            doctype.publicId || doctype.systemId ? ` "${doctype.publicId}" "${doctype.systemId}"` : '';
          lines.push(`${pad}<!DOCTYPE ${doctype.name}${ids}>`);
          continue;
        }
      }
      const element = node as Element;
      lines.push(`${pad}<${NS_PREFIX[element.namespaceURI] ?? ''}${element.tagName}>`);
      const attributes = element.attrs
        .map((attribute) => [
          `${ATTRIBUTE_NS_PREFIX[attribute.namespace ?? ''] ?? ''}${attribute.name}`,
          attribute.value,
        ])
        .sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
      for (const [name, value] of attributes) lines.push(`${pad}  ${name}="${value}"`);
      if (element.tagName === 'template' && element.namespaceURI === 'http://www.w3.org/1999/xhtml') {
        lines.push(`${pad}  content`);
        walk((element as DefaultTreeAdapterTypes.Template).content.childNodes, depth + 2);
      }
      walk(element.childNodes, depth + 1);
    }
  };
  walk(root.childNodes, 0);
  return lines.join('\n');
}

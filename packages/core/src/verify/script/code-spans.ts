/**
 * Text with code spans, for the verify page: the rule book's messages and the coverage sentence mark code
 * in backticks ("the markup of `main`"), which a reader should see as code, not as backticks.
 */

/**
 * Set `element`'s content to `text`, each span in a pair of backticks as a `<code>` element. Built from
 * text nodes only (`textContent`, `append` of strings), never parsed as HTML: messages carry what the page
 * controls (its address, title, `<base href>`). An unpaired last backtick stays as text.
 *
 * @example
 * ```ts
 * showWithCode(status, 'A valid signature covers the markup of `main`');
 * // status: A valid signature covers the markup of <code>main</code>
 * ```
 */
export function showWithCode(element: HTMLElement, text: string): void {
  const spans = text.split('`');
  element.replaceChildren(
    ...spans.map((span, index) => {
      if (index % 2 === 0) return span;
      if (index === spans.length - 1) return `\`${span}`;
      const code = document.createElement('code');
      code.textContent = span;
      return code;
    }),
  );
}

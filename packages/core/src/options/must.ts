// How an option's error says what its value must be: one wording for every field of the options schema.

/** A zod error that says what a value must be, after the option's name: "must be …, got `value`". */
export function must(what: string): { error: (issue: { input?: unknown }) => string } {
  return { error: (issue) => `must be ${what}, got \`${formatValue(issue.input)}\`` };
}

export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

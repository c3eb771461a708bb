/** Wait until `check` holds, polling every `everyMs` (default 200), up to `ms`; then fail saying how long. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  ms: number,
  everyMs = 200,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

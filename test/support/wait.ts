/** Polls `probe` until it returns a value (not undefined/false), or fails after `timeoutMs`. */
export async function waitUntil<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30000,
  describe: () => string = () => 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Resolves once `condition` holds, checking every 5 ms; rejects naming `what`
 * after `timeoutMs`. For tests that wait on another process or a stream, where
 * a fixed sleep would race on a slow machine.
 */
export function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (condition()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(check, 5);
    };
    check();
  });
}

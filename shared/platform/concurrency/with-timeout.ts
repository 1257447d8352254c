/**
 * Runs `work` with a deadline: settles as `work` does, or rejects once `ms` passes with
 * `onTimeout()` (by default the signal's reason, a DOMException named "TimeoutError": see
 * `isTimeout`). `work` receives the deadline's signal, to stop what it can (a fetch, a reader,
 * its listeners) when the deadline passes; whatever it cannot stop runs on, and its late
 * rejection is handled here so it never surfaces as unhandled.
 *
 * The deadline is `AbortSignal.timeout`: the runtime's timer, which never keeps the process
 * alive, and nothing is left listening to it once the call settles.
 */
export async function withTimeout<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
  onTimeout?: () => unknown,
): Promise<T> {
  const signal = AbortSignal.timeout(Math.max(0, ms));
  let onAbort!: () => void;
  // Listening before `work` does: at the bound the timeout is the answer, whatever the work does on abort.
  const expired = new Promise<never>((_, reject) => {
    onAbort = () => reject(onTimeout ? onTimeout() : signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const running = work(signal);
    return await Promise.race([running, expired]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** True for the rejection `withTimeout` answers with when no `onTimeout` is given. */
export function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === "TimeoutError";
}

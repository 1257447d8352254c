type Pending = { dueAt: number; expire: () => void };

/**
 * Deadlines for many short operations, kept by one timer that sweeps the pending ones every
 * `tickMs` while any are pending. `withTimeout` arms a timer of its own per call
 * (`AbortSignal.timeout`, a listener, a race: ~2 CPU-µs per call, measured in bench/README.md),
 * which is what every request body read paid; here a call costs a Set entry and one promise. The
 * price is precision: a deadline is met between `ms` and `ms + tickMs` after the call, never
 * before. The timer does not keep the process alive, and it stops once nothing is pending.
 */
export class DeadlineSweep {
  private readonly pending = new Set<Pending>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly tickMs: number) {}

  /**
   * Settles as `work` does, or rejects with `onTimeout()` once `ms` have passed. `work` runs on
   * past its deadline (whoever started it stops it, as a closed connection ends a body read); its
   * late settlement is ignored, and a late rejection never surfaces as unhandled.
   */
  within<T>(ms: number, work: Promise<T>, onTimeout: () => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { dueAt: performance.now() + ms, expire: () => reject(onTimeout()) };
      this.pending.add(entry);
      this.timer ??= this.start();
      work.then(
        (value) => {
          this.pending.delete(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.pending.delete(entry);
          reject(error);
        },
      );
    });
  }

  private start(): ReturnType<typeof setInterval> {
    const timer = setInterval(() => this.sweep(), this.tickMs);
    timer.unref();
    return timer;
  }

  private sweep(): void {
    const now = performance.now();
    for (const entry of this.pending) {
      if (entry.dueAt > now) continue;
      this.pending.delete(entry);
      entry.expire();
    }
    if (this.pending.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

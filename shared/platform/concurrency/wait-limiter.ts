import { AppError } from "../errors";
import { withTimeout } from "./with-timeout";

/**
 * At most `limit` tasks run at once in this process; a task beyond waits its turn (first come,
 * first served) for at most `maxWaitMs`, then fails with 503 `unavailable` (Retry-After 1 s).
 * postgres.js has no pool-acquire timeout: without this, a burst of heavy queries (search) would
 * hold every pooled connection and every other Postgres-backed request would queue behind them
 * without bound. A limit below the pool size keeps connections free for everything else.
 */
export class WaitLimiter {
  private running = 0;
  private readonly queue: { start: () => void }[] = [];

  constructor(
    readonly limit: number,
    readonly maxWaitMs: number,
  ) {}

  /** Slots taken now. */
  get inUse(): number {
    return this.running;
  }

  /** Tasks waiting for a slot now. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `task` when a slot is free (within the wait bound); the slot is released however it ends. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    const wait = (deadline: AbortSignal) =>
      new Promise<void>((resolve) => {
        // Past the deadline the waiter leaves the queue (in the same event that rejects the wait),
        // so no released slot is handed to it.
        const leave = () => this.queue.splice(this.queue.indexOf(waiter), 1);
        const waiter = {
          // The releasing task hands its slot over, so `running` does not change.
          start: () => {
            deadline.removeEventListener("abort", leave);
            resolve();
          },
        };
        deadline.addEventListener("abort", leave, { once: true });
        this.queue.push(waiter);
      });
    return withTimeout(this.maxWaitMs, wait, () => new AppError("unavailable", 1, "wait_limit"));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next.start();
    else this.running--;
  }
}

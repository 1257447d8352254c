import { AppError, type Logger, loggableError, isDependencyUnavailable, hookMisses, withTimeout } from "@amem/platform";

/** Why a hook answered with no decision. */
export type MissCause = "timeout" | "unavailable";
export type Budgeted<T> = { done: true; value: T } | { done: false; cause: MissCause };

/**
 * Runs a hook's work within HOOK_BUDGET_MS. The agent waits on the hook, so a slow or degraded amem
 * (over budget, a store down, a queued job past its wait) ends in "no decision" instead of an
 * error, and the agent carries on. Work that outlives its budget keeps running to its end (its
 * writes are as safe to land late as any retried request's); only its answer is dropped. Errors
 * that are the caller's (401, 410, 400) are thrown as usual.
 */
export async function withinBudget<T>(budgetMs: number, logger: Logger, work: () => Promise<T>): Promise<Budgeted<T>> {
  const running = work();
  const overBudget = Symbol("over budget");
  try {
    return {
      done: true,
      value: await withTimeout(
        budgetMs,
        () => running,
        () => overBudget,
      ),
    };
  } catch (error) {
    if (error === overBudget) {
      running.catch((late) => {
        if (!isDependencyUnavailable(late))
          logger.error({ err: loggableError(late) }, "hook work failed after its budget");
      });
      return { done: false, cause: "timeout" };
    }
    if (isDependencyUnavailable(error) || (error instanceof AppError && error.code === "unavailable"))
      return { done: false, cause: "unavailable" };
    throw error;
  }
}

/**
 * Hook answers given without a decision, counted per harness, event and cause and logged with the
 * running count (one warn line per miss). Exported as `amem_hook_misses_total` (harness and event
 * are the routes' fixed vocabularies); the in-process count stays for the log line.
 */
export class HookMisses {
  private readonly counts = new Map<string, number>();

  constructor(private readonly logger: Logger) {}

  /** `logger`: the request's own (its request id on the line), else the one given at construction. */
  record(harness: string, event: string, cause: MissCause, logger: Logger = this.logger): number {
    const key = `${harness} ${event} ${cause}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    hookMisses.inc({ harness, event, cause });
    logger.warn({ harness, event, cause, misses: count }, "hook answered without a decision");
    return count;
  }

  /** Misses so far for one harness, event and cause. */
  count(harness: string, event: string, cause: MissCause): number {
    return this.counts.get(`${harness} ${event} ${cause}`) ?? 0;
  }
}

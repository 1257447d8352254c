import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { isTimeout, withTimeout } from "@amem/platform";
import { expectExitsByItself, expectLateRejectionHandled } from "./deadline-checks";

const never = () => new Promise<never>(() => {});

describe("withTimeout", () => {
  it("rejects at the bound, not before, with the signal's TimeoutError", async () => {
    const startedAt = performance.now();
    const error = await withTimeout(100, never).catch((e: unknown) => e);
    // Timers may fire a millisecond early; the bound is what matters, not a tight upper limit.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(95);
    expect(isTimeout(error)).toBe(true);
  });

  it("rejects with what onTimeout makes, when given", async () => {
    const marker = new Error("over budget");
    expect(await withTimeout(20, never, () => marker).catch((e: unknown) => e)).toBe(marker);
  });

  it("resolves and rejects as the work does before the bound", async () => {
    expect(await withTimeout(10_000, async () => "answer")).toBe("answer");
    const failure = new Error("work failed");
    expect(
      await withTimeout(10_000, async () => {
        throw failure;
      }).catch((e: unknown) => e),
    ).toBe(failure);
  });

  it("passes the deadline's signal to the work, aborted once the bound passes", async () => {
    let seen: AbortSignal | undefined;
    let abortedInside = false;
    const error = await withTimeout(30, (signal) => {
      seen = signal;
      return new Promise<never>((_, reject) =>
        signal.addEventListener("abort", () => {
          abortedInside = true;
          reject(new Error("stopped by the signal"));
        }),
      );
    }).catch((e: unknown) => e);
    expect(abortedInside).toBe(true);
    expect(seen?.aborted).toBe(true);
    expect(isTimeout(seen?.reason)).toBe(true);
    expect(isTimeout(error)).toBe(true);
  });

  it("handles the late rejection of work abandoned at the bound", async () => {
    await expectLateRejectionHandled(async (late) => {
      expect(isTimeout(await withTimeout(10, () => late).catch((e: unknown) => e))).toBe(true);
    });
  });

  it(
    "leaves no timer that keeps the process alive once the work has settled",
    async () => {
      // A bound of ten minutes: a process that waited on it would outlive the test by far.
      const script = `import { withTimeout } from ${JSON.stringify(join(import.meta.dir, "../../shared/platform/concurrency/with-timeout.ts"))};
console.log(await withTimeout(600_000, async () => "settled"));`;
      await expectExitsByItself(script);
    },
    { timeout: 120_000 },
  );
});

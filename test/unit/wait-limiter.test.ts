import { describe, expect, it } from "bun:test";
import { AppError, WaitLimiter } from "@amem/platform";

/** A task that runs until the test lets it finish. */
function heldTask() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { task: () => done, finish };
}

describe("WaitLimiter", () => {
  it("runs at most `limit` tasks at once and starts waiting tasks in arrival order", async () => {
    const limiter = new WaitLimiter(2, 5_000);
    const started: string[] = [];
    const tasks = Object.fromEntries(["h0", "h1", "a", "b"].map((name) => [name, heldTask()]));
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    const runs = Object.entries(tasks).map(([name, t]) =>
      limiter.run(async () => {
        started.push(name);
        await t.task();
      }),
    );
    await settle();
    expect(started).toEqual(["h0", "h1"]);
    tasks.h1!.finish();
    await settle();
    expect(started).toEqual(["h0", "h1", "a"]);
    tasks.h0!.finish();
    await settle();
    expect(started).toEqual(["h0", "h1", "a", "b"]);
    tasks.a!.finish();
    tasks.b!.finish();
    await Promise.all(runs);
  });

  it("fails a task that waits longer than the bound with 503 unavailable (Retry-After 1) and never runs it", async () => {
    const limiter = new WaitLimiter(1, 50);
    const held = heldTask();
    const running = limiter.run(held.task);
    let ran = false;
    const startedAt = performance.now();
    const error = await limiter
      .run(async () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(45);
    expect(error).toBeInstanceOf(AppError);
    expect({ code: (error as AppError).code, retryAfter: (error as AppError).retryAfterSeconds }).toEqual({
      code: "unavailable",
      retryAfter: 1,
    });
    held.finish();
    await running;
    expect(ran).toBe(false);
  });

  it("frees the slot of a task that throws, and of a waiter that gave up", async () => {
    const limiter = new WaitLimiter(1, 30);
    await expect(
      limiter.run(async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const held = heldTask();
    const running = limiter.run(held.task);
    await expect(limiter.run(async () => "late")).rejects.toBeInstanceOf(AppError);
    held.finish();
    await running;
    // Both slots' worth of history is settled: exactly one task may run again, a second waits.
    const again = heldTask();
    const first = limiter.run(again.task);
    let secondRan = false;
    const second = limiter.run(async () => {
      secondRan = true;
    });
    await Promise.resolve();
    expect(secondRan).toBe(false);
    again.finish();
    await Promise.all([first, second]);
    expect(secondRan).toBe(true);
  });
});

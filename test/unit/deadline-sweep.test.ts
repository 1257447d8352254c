import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { DeadlineSweep } from "@amem/platform";
import { expectExitsByItself, expectLateRejectionHandled } from "./deadline-checks";

const never = () => new Promise<never>(() => {});
const expired = new Error("expired");

describe("DeadlineSweep", () => {
  it("rejects at the deadline, not before, with what onTimeout makes", async () => {
    const sweep = new DeadlineSweep(20);
    const startedAt = performance.now();
    const error = await sweep.within(100, never(), () => expired).catch((e: unknown) => e);
    expect(error).toBe(expired);
    // Never early; late by up to one tick (and the box's timer slack), not a tight upper limit.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(99);
  });

  it("settles as the work does before the deadline", async () => {
    const sweep = new DeadlineSweep(20);
    expect(await sweep.within(10_000, Promise.resolve("answer"), () => expired)).toBe("answer");
    const failure = new Error("work failed");
    expect(await sweep.within(10_000, Promise.reject(failure), () => expired).catch((e: unknown) => e)).toBe(failure);
  });

  it("keeps each deadline apart: one expires while a later one is still pending", async () => {
    const sweep = new DeadlineSweep(10);
    let finish!: (value: string) => void;
    const slow = sweep.within(2_000, new Promise<string>((resolve) => (finish = resolve)), () => expired);
    expect(await sweep.within(30, never(), () => expired).catch((e: unknown) => e)).toBe(expired);
    finish("late but in time");
    expect(await slow).toBe("late but in time");
  });

  it("handles the late rejection of work abandoned at the deadline", async () => {
    const sweep = new DeadlineSweep(10);
    await expectLateRejectionHandled(async (late) => {
      expect(await sweep.within(10, late, () => expired).catch((e: unknown) => e)).toBe(expired);
    });
  });

  it(
    "leaves no timer that keeps the process alive, pending work or not",
    async () => {
      // A deadline of ten minutes on work that never settles: a process that waited on it would outlive the test by far.
      const script = `import { DeadlineSweep } from ${JSON.stringify(join(import.meta.dir, "../../shared/platform/concurrency/deadline-sweep.ts"))};
const sweep = new DeadlineSweep(50);
void sweep.within(600_000, new Promise(() => {}), () => new Error("expired")).catch(() => {});
console.log(await sweep.within(600_000, Promise.resolve("settled"), () => new Error("expired")));`;
      await expectExitsByItself(script);
    },
    { timeout: 120_000 },
  );
});

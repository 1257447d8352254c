import { expect } from "bun:test";
import { runProcess } from "../process";

/**
 * Hands `abandon` work that is still pending (it must give up on it at a deadline), rejects that
 * work afterwards, and requires that the late rejection reached no unhandledRejection handler.
 */
export async function expectLateRejectionHandled(abandon: (late: Promise<never>) => Promise<void>): Promise<void> {
  let rejectLate!: (e: Error) => void;
  const late = new Promise<never>((_, reject) => (rejectLate = reject));
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    await abandon(late);
    rejectLate(new Error("late"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
}

/**
 * Runs `script` in a fresh bun process: it must print "settled" and exit by itself, long before the
 * ten-minute deadlines it sets (a timer left behind would keep the process alive).
 */
export async function expectExitsByItself(script: string): Promise<void> {
  const run = await runProcess([process.execPath, "-e", script], { env: { PATH: process.env.PATH ?? "" } });
  expect({ exitCode: run.exitCode, stdout: run.stdout.trim(), stderr: run.stderr }).toEqual({
    exitCode: 0,
    stdout: "settled",
    stderr: "",
  });
  expect(run.ms).toBeLessThan(60_000);
}

import type { Subprocess } from "bun";
import type { Logger } from "@amem/platform";

export type ChildSpec = { name: string; command: string[] };
export type SupervisorOptions = {
  cwd: string;
  /** First restart delay; doubled per quick successive death, up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A child that ran this long before dying counts as healthy: its next restart waits `initialBackoffMs` again. */
  stableAfterMs?: number;
};

type Slot = {
  spec: ChildSpec;
  child: Subprocess | null;
  startedAt: number;
  backoffMs: number;
  restartTimer: ReturnType<typeof setTimeout> | null;
};

/**
 * Runs each child (api, workers) as a process of this one and restarts one that dies unexpectedly,
 * with a backoff that doubles while it keeps dying quickly: a child that crashed (the issue's
 * postgres.js TypeError killed the api and nothing brought it back) is serving again within a
 * second, and one that cannot start does not spin. A signal passed to `stop` goes to every child,
 * cancels pending restarts and resolves once all have exited (graceful stop).
 */
export function supervise(specs: readonly ChildSpec[], logger: Logger, options: SupervisorOptions) {
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const stableAfterMs = options.stableAfterMs ?? 30_000;
  let stopping = false;
  const slots: Slot[] = specs.map((spec) => ({
    spec,
    child: null,
    startedAt: 0,
    backoffMs: initialBackoffMs,
    restartTimer: null,
  }));

  const start = (slot: Slot) => {
    slot.restartTimer = null;
    const child = Bun.spawn(slot.spec.command, {
      cwd: options.cwd,
      stdio: ["inherit", "inherit", "inherit"],
      env: process.env,
    });
    slot.child = child;
    slot.startedAt = Date.now();
    logger.info({ child: slot.spec.name, pid: child.pid }, "child started");
    void child.exited.then((code) => onExit(slot, child, code));
  };

  const onExit = (slot: Slot, child: Subprocess, code: number) => {
    if (slot.child !== child) return;
    slot.child = null;
    if (stopping) return;
    const ranMs = Date.now() - slot.startedAt;
    if (ranMs >= stableAfterMs) slot.backoffMs = initialBackoffMs;
    const delayMs = slot.backoffMs;
    slot.backoffMs = Math.min(slot.backoffMs * 2, maxBackoffMs);
    logger.error(
      {
        child: slot.spec.name,
        pid: child.pid,
        exitCode: code,
        signal: child.signalCode ?? null,
        ranMs,
        restartInMs: delayMs,
      },
      "child exited unexpectedly; restarting",
    );
    slot.restartTimer = setTimeout(() => start(slot), delayMs);
  };

  for (const slot of slots) start(slot);

  return {
    /** The running children's pids by name (a child waiting for its restart has none). */
    pids: (): Record<string, number | null> =>
      Object.fromEntries(slots.map((slot) => [slot.spec.name, slot.child?.pid ?? null])),
    /** Passes `signal` to every child, restarts none, and resolves once all have exited. */
    stop: async (signal: NodeJS.Signals): Promise<void> => {
      stopping = true;
      const running: Promise<unknown>[] = [];
      for (const slot of slots) {
        if (slot.restartTimer) clearTimeout(slot.restartTimer);
        slot.restartTimer = null;
        if (slot.child) {
          running.push(slot.child.exited);
          slot.child.kill(signal);
        }
      }
      await Promise.all(running);
    },
  };
}

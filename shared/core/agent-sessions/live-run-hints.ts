/** How long a hint lasts, and how many a process keeps (beyond it the oldest are forgotten). */
const HINT_TTL_MS = 60_000;
const CAPACITY = 10_000;

/**
 * The projects (per user) where this process last found a live run to attribute a capture to.
 * A capture there goes straight to the attributing transaction instead of first trying the
 * one-statement plain insert, which would find the live run and write nothing: one statement
 * wasted on every capture an agent makes under `amem connect`.
 *
 * Only a hint: the transaction decides attribution from Postgres under the run's lock whatever the
 * hint says, so a stale one costs a capture the longer path, never a wrong answer. It is forgotten
 * when the transaction finds no live run (the run closed or lapsed), and lapses after a minute.
 */
export class LiveRunHints {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly ttlMs = HINT_TTL_MS,
    private readonly capacity = CAPACITY,
  ) {}

  has(userId: string, project: string | null, nowMs: number): boolean {
    const key = hintKey(userId, project);
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > nowMs) return true;
    this.until.delete(key);
    return false;
  }

  note(userId: string, project: string | null, nowMs: number): void {
    const key = hintKey(userId, project);
    this.until.delete(key); // re-inserted last, so the capacity bound forgets the oldest first
    if (this.until.size >= this.capacity) this.until.delete(this.until.keys().next().value!);
    this.until.set(key, nowMs + this.ttlMs);
  }

  forget(userId: string, project: string | null): void {
    this.until.delete(hintKey(userId, project));
  }
}

/** A user id holds no NUL, so the key is unambiguous; a null project has its own key. */
function hintKey(userId: string, project: string | null): string {
  return project === null ? userId : `${userId}\u0000${project}`;
}

/**
 * Lease rules (SPEC §3.2). A row is live when it is not closed and was seen within the lease;
 * past the lease it is lease-expired whether or not anything has stamped it.
 */
export function isLive(closedAt: Date | null, lastSeenMs: number, nowMs: number, leaseMs: number): boolean {
  return closedAt === null && nowMs - lastSeenMs < leaseMs;
}

/** Lease hashes outlive the lease by an hour, then fall out of Redis; Postgres keeps the row. */
export function leaseKeyTtlMs(leaseMs: number): number {
  return leaseMs + 3_600_000;
}

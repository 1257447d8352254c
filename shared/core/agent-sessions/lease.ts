import type { Config } from "@amem/platform";

/** SESSION_LEASE_SECONDS in milliseconds. */
export function leaseMs(config: Config): number {
  return config.SESSION_LEASE_SECONDS * 1000;
}

/** Rows seen at or before this instant are past their lease. */
export function leaseCutoff(config: Config, now: Date): Date {
  return new Date(now.getTime() - leaseMs(config));
}

/**
 * Lease rules (SPEC §3.2). A row is live when it is not closed and was seen within the lease;
 * past the lease it is lease-expired whether or not anything has stamped it.
 */
export function isLive(closedAt: Date | null, lastSeenMs: number, nowMs: number, leaseMs: number): boolean {
  return closedAt === null && nowMs - lastSeenMs < leaseMs;
}

/**
 * Lease hashes outlive the lease by an hour, less up to a minute (a heartbeat renews the TTL once a
 * minute: shared/store/redis/scripts/lib/lease-heartbeat.lua), then fall out of Redis; Postgres
 * keeps the row.
 */
export function leaseKeyTtlMs(leaseMs: number): number {
  return leaseMs + 3_600_000;
}

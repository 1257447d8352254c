import { afterEach } from "bun:test";
import type { Tenant, TestContext } from "../helpers";

/*
 * The maintenance passes scan every tenant of the shared test database. To get exact counts, a
 * pass is run "as of" an instant in a stretch of the 1920s that only these tests use: rows aged
 * into it are candidates, every other row (seen, closed or due in real time) lies in that pass's
 * future and is left alone.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let next = 0;

/** A fresh instant in the 1920s, 30 days from every other one handed out in this process. */
export function pastNow(): Date {
  return new Date(Date.UTC(1920, 0, 1) + (next++ * 30 + 10) * DAY);
}

export const ms = { hour: HOUR, day: DAY };

/**
 * After each test, leaves nothing of the given tenants that a later pass (of any run) could still
 * act on: sessions closed in real time with no excerpt and no pending attempt, commitments
 * surfaced, bearer sessions and mail tokens deleted.
 */
export function retireAfterEach(ctx: TestContext): (tenant: Tenant) => Tenant {
  const tenants: Tenant[] = [];
  afterEach(async () => {
    for (const t of tenants.splice(0)) {
      const sql = ctx.deps.sql;
      await sql`
        update agent_sessions set closed_at = coalesce(closed_at, now()), last_message_excerpt = null,
          triage_status = case when triage_status = 'pending' then 'idle' else triage_status end
        where user_id = ${t.userId}`;
      await sql`update commitments set surfaced_at = coalesce(surfaced_at, now()) where user_id = ${t.userId}`;
      await sql`delete from user_sessions where user_id = ${t.userId}`;
      await sql`delete from email_verification_tokens where user_id = ${t.userId}`;
      await sql`delete from password_reset_tokens where user_id = ${t.userId}`;
    }
  });
  return (tenant) => (tenants.push(tenant), tenant);
}

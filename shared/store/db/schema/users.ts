import { sql } from "drizzle-orm";
import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, oneOfCheck, ts } from "./columns";

/** active → erasing (writes refused, 410) → deleted (credentials revoked, 401). */
export const USER_STATES = ["active", "erasing", "deleted"] as const;
export type UserState = (typeof USER_STATES)[number];

/**
 * A tenant. `state` moves active → erasing → deleted (SPEC §8); every write of the tenant holds
 * this row FOR KEY SHARE while the state is active (shared/core/accounts/write-fence.ts).
 */
export const users = pgTable(
  "users",
  {
    id: idColumn(),
    email: text("email").notNull(),
    passwordHash: text("password_hash"),
    state: text("state").$type<UserState>().notNull().default("active"),
    emailVerifiedAt: ts("email_verified_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** When erasure began (kept once deleted): the sweep resumes an erasure whose job was lost. */
    erasingSince: ts("erasing_since"),
  },
  (t) => [
    uniqueIndex("users_email_lower_key").on(sql`lower(${t.email})`),
    // The sweep's scan for erasures whose job was lost, over the few accounts being erased.
    index("users_erasing_since_idx").on(t.erasingSince).where(sql`${t.state} = 'erasing'`),
    oneOfCheck("users_state_check", t.state, USER_STATES),
  ],
);

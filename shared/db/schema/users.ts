import { sql } from "drizzle-orm";
import { check, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, ts } from "./columns";

/** A tenant. `state` moves active → erasing → deleted (erasure arrives with its issue). */
export const users = pgTable(
  "users",
  {
    id: idColumn(),
    email: text("email").notNull(),
    passwordHash: text("password_hash"),
    state: text("state").notNull().default("active"),
    emailVerifiedAt: ts("email_verified_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("users_email_lower_key").on(sql`lower(${t.email})`),
    check("users_state_check", sql`${t.state} in ('active', 'erasing', 'deleted')`),
  ],
);

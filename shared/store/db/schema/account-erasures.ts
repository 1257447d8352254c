import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";

export type ErasureCounts = {
  agentSessions: number;
  apiKeysRevoked: number;
  commitments: number;
  emailVerificationTokensDeleted: number;
  factProposals: number;
  facts: number;
  memories: number;
  oauthCodesDeleted: number;
  oauthTokensRevoked: number;
  passwordResetTokensDeleted: number;
  proposals: number;
  sessionsDeleted: number;
};

/**
 * The erasure ledger (SPEC §8): proof that an account was erased, holding no personal data —
 * only the (now anonymous) user id, the time and the counts. One row per user.
 */
export const accountErasures = pgTable(
  "account_erasures",
  {
    id: uuid("id").primaryKey(),
    userId: uuid("user_id").notNull().unique("account_erasures_user_key"),
    erasedAt: ts("erased_at").notNull(),
    counts: jsonb("counts").$type<ErasureCounts>().notNull(),
    /**
     * When the follow-up run is due; null once it ran. Written in the erasure's transaction, so the
     * follow-up survives the loss of its queued job: the sweep enqueues it again until it has run.
     */
    followUpDueAt: ts("follow_up_due_at"),
  },
  (t) => [index("account_erasures_follow_up_idx").on(t.followUpDueAt).where(sql`${t.followUpDueAt} is not null`)],
);

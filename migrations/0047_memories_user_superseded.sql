-- The console's "superseded only" list (GET /api/console/memories?versions=superseded): a tenant's replaced
-- memories newest first from their own range, not a walk of every memory it has. Partial: only replaced rows.
CREATE INDEX "memories_user_superseded_created_idx" ON "memories" USING btree ("user_id","created_at","id") WHERE "memories"."valid_to" is not null;
CREATE INDEX "agent_sessions_user_by_id_idx" ON "agent_sessions" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "memories_user_by_id_idx" ON "memories" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "memory_edges_user_by_id_idx" ON "memory_edges" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "commitments_user_by_id_idx" ON "commitments" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "facts_user_by_id_idx" ON "facts" USING btree ("user_id","id");
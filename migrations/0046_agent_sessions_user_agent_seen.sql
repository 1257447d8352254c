-- The console's Agents fleet (shared/store/db/queries/agent-fleet.ts): each agent's last seen, live and recent runs read from the
-- end of its own range of this index, so an agent whose runs are all old is found without reading anyone's newer runs.
CREATE INDEX "agent_sessions_user_agent_seen_idx" ON "agent_sessions" USING btree ("user_id","agent","last_seen_at");
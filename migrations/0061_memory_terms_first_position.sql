-- Each posting keeps its term's first position in the memory's document (topic, then content, as
-- `search` holds them), for the ranking's proximity factor (core/memories/search-ranking.ts), and
-- the champion index carries it, so a filtered search still reads its lists index-only. The table
-- is written anew with it (each posting's position from its memory's document) instead of updated
-- in place: in the migration's one transaction an UPDATE leaves every old row version in the index
-- built after it, and a copy of the bench's 2.7 million postings came out with its champion index
-- 63% larger and 44% full once vacuumed. Writes wait on the lock until the migration commits (no
-- foreign key names the table; the functions that write it find it by name). On a large database,
-- run the upgrade in a quiet hour: 16 s for the bench's 2.7 million postings here (README "Search").
LOCK TABLE "memory_terms" IN ACCESS EXCLUSIVE MODE;--> statement-breakpoint
CREATE TABLE "memory_terms_rebuilt" (
	"memory_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"term" text NOT NULL,
	"topic_tf" smallint NOT NULL,
	"content_tf" smallint NOT NULL,
	"topic_length" smallint NOT NULL,
	"content_length" smallint NOT NULL,
	"impact" real NOT NULL,
	"first_position" smallint NOT NULL
);--> statement-breakpoint
-- A posting whose term its memory's document does not hold cannot occur (postings are written from
-- the document, and deleted with it); should one exist, it is put first rather than failing the upgrade.
INSERT INTO "memory_terms_rebuilt"
SELECT t.memory_id, t.user_id, t.term, t.topic_tf, t.content_tf, t.topic_length, t.content_length, t.impact,
  coalesce(f.first, 1)
FROM "memory_terms" t
LEFT JOIN (SELECT m.id, x.lexeme, x.positions[1] AS first FROM "memories" m, unnest(m.search) x) f
  ON f.id = t.memory_id AND f.lexeme = t.term;--> statement-breakpoint
DROP TABLE "memory_terms";--> statement-breakpoint
ALTER TABLE "memory_terms_rebuilt" RENAME TO "memory_terms";--> statement-breakpoint
ALTER TABLE "memory_terms" ADD CONSTRAINT "memory_terms_pkey" PRIMARY KEY("memory_id","term");--> statement-breakpoint
CREATE INDEX "memory_terms_champion_idx" ON "memory_terms" USING btree ("user_id","term","impact" DESC NULLS LAST,"memory_id" DESC NULLS LAST,"topic_tf","content_tf","topic_length","content_length","first_position");

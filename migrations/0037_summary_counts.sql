CREATE TABLE "summary_count_deltas" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "summary_count_deltas_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"n" integer NOT NULL,
	"last_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "summary_counts" (
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"n" bigint NOT NULL,
	"last_at" timestamp (3) with time zone,
	CONSTRAINT "summary_counts_pkey" PRIMARY KEY("user_id","kind","key")
);
--> statement-breakpoint
CREATE INDEX "summary_count_deltas_user_idx" ON "summary_count_deltas" USING btree ("user_id");
CREATE TABLE "memory_activity" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"memory_type" text NOT NULL,
	"written" integer NOT NULL,
	CONSTRAINT "memory_activity_pkey" PRIMARY KEY("user_id","day","memory_type")
);

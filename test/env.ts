/**
 * Where tests find their services; override with TEST_DATABASE_URL / TEST_REDIS_URL. With
 * AMEM_TEST_REDIS=cluster the preload (setup.ts) starts a private Redis Cluster and sets
 * TEST_REDIS_URL to it (`redis+cluster://…`).
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/amem_test";
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379/1";
/** True when the suite runs against a Redis Cluster. */
export const ON_CLUSTER = TEST_REDIS_URL.startsWith("redis+cluster://");

-- Remembers a browser signed in on the OAuth login page for TTL seconds and lists its key in the
-- user's key index (indexKey, which prunes two dead members): one script, so a sign-in never
-- leaves a session erasure cannot find, and sign-ins alone keep the index bounded (each added a
-- member for good when nothing else of the user pruned it).
-- KEYS[1] the browser session key   KEYS[2] the user's key index
-- ARGV[1] TTL (s)
redis.call('SET', KEYS[1], '1', 'EX', ARGV[1])
indexKey(KEYS[2], KEYS[1])
return 1

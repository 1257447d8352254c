-- KEYS[1] credential cache entry   KEYS[2] last-used hash   KEYS[3] rate-limit counter
-- ARGV[1] now (ms)   ARGV[2] rate limit per window (0 = off)   ARGV[3] window length (s)
return authenticate(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3])

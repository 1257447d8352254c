-- KEYS[1] rate-limit counter   ARGV[1] window length (s)
return countRequest(KEYS[1], ARGV[1])

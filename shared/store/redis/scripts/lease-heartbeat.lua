-- KEYS[1] lease hash   KEYS[2] dirty set
-- ARGV[1] now (ms)   ARGV[2] lease (ms)   ARGV[3] key TTL (ms)   ARGV[4] '1' when an excerpt is sent   ARGV[5] excerpt
return heartbeatLease(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])

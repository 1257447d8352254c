-- The Lua reader of the credential-cache entry that shared/core/auth/credential-entry.ts writes, for every
-- script that reads it (test/auth/credential-entry.test.ts holds the two to the same fields):
-- a|<kind>|<userId>|<credentialId>|<userState>|<expiresAtMs>|… (the rest is the TypeScript side's).
-- Returns kind, userId, credentialId, userState, expiresAtMs (a string; '0' = never), or nil for a
-- revoked or unknown marker.
local function parseCredentialEntry(entry)
  return string.match(entry, '^a|(%a)|([^|]+)|([^|]+)|([^|]+)|(%d+)|')
end

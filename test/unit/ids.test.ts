import { describe, expect, it } from "bun:test";
import {
  hasSecretShape,
  isPkceValue,
  isRandomToken,
  isUuid,
  mintApiKey,
  mintSecret,
  newClientId,
  newId,
  randomToken,
  SECRET_PREFIXES,
  type SecretKind,
  secretHash,
  sha256Hex,
} from "@amem/platform";

const KINDS = Object.keys(SECRET_PREFIXES) as SecretKind[];

describe("shared/platform/ids", () => {
  it("tells every kind of secret apart by shape alone, and from random tokens", () => {
    for (const minted of KINDS) {
      const { secret, hash } = mintSecret(minted);
      expect(hash).toBe(sha256Hex(secret));
      for (const kind of KINDS)
        expect({ minted, kind, match: hasSecretShape(kind, secret) }).toEqual({ minted, kind, match: kind === minted });
      expect(isRandomToken(secret)).toBe(false);
    }
    const token = randomToken();
    expect(isRandomToken(token)).toBe(true);
    for (const kind of KINDS) expect(hasSecretShape(kind, token)).toBe(false);
  });

  it("hashes a secret only when it has its kind's shape", () => {
    const { secret, hash } = mintSecret("refreshToken");
    expect(secretHash("refreshToken", secret)).toBe(hash);
    expect(secretHash("code", secret)).toBeNull();
    expect(secretHash("refreshToken", `${secret}x`)).toBeNull();
  });

  it("mints API keys that show 8 characters after the prefix", () => {
    const { key, keyHash, prefix } = mintApiKey();
    expect(hasSecretShape("apiKey", key)).toBe(true);
    expect(keyHash).toBe(sha256Hex(key));
    expect(key.startsWith(`amem_${prefix}`)).toBe(true);
    expect(prefix).toHaveLength(8);
  });

  it("accepts the UUIDs the contract accepts and nothing else", () => {
    expect(isUuid(newId())).toBe(true);
    expect(isUuid(crypto.randomUUID().toUpperCase())).toBe(true);
    expect(isUuid("00000000-0000-0000-0000-000000000000")).toBe(true);
    expect(isUuid("00000000-0000-0000-0000-00000000000")).toBe(false);
    expect(isUuid("00000000-0000-9000-8000-000000000000")).toBe(false);
    expect(isUuid(`${newId()}\n`)).toBe(false);
  });

  it("bounds PKCE values to 43–128 unreserved characters", () => {
    expect(isPkceValue("a".repeat(43))).toBe(true);
    expect(isPkceValue("a".repeat(42))).toBe(false);
    expect(isPkceValue("a".repeat(129))).toBe(false);
    expect(isPkceValue(`${"a".repeat(42)}+`)).toBe(false);
    expect(newClientId()).toMatch(/^amem_client_[0-9A-Za-z]{24}$/);
  });
});

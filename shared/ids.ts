import { randomBytes } from "node:crypto";

/** Ids the service mints: UUIDv7 (time-ordered), lower-case. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` base62 characters from the CSPRNG, without modulo bias (rejection sampling). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function sha256Hex(value: string): string {
  return Bun.SHA256.hash(value, "hex");
}

/** 32 random bytes, base64url: bearer tokens and one-time mail tokens. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

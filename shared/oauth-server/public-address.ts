import { isIP } from "node:net";

/**
 * Which IP addresses an outbound fetch on a client's behalf may connect to: public unicast only.
 * Everything else — private, loopback, link-local, carrier-grade NAT, multicast, unspecified,
 * documentation, benchmarking, reserved — is refused, so a Client ID Metadata Document URL can
 * never make the server reach into its own network (SSRF, CIMD draft §8.6). IPv6 addresses that
 * carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`)
 * are judged by that IPv4 address. Ranges: the IANA IPv4 and IPv6 special-purpose registries.
 */

type Range = readonly [base: bigint, prefixLength: number];

function v4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function v6(text: string): bigint | null {
  if (text.includes("%")) return null; // a zone id names an interface: link-local by construction
  let head = text;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    const ipv4 = v4(text.slice(lastColon + 1));
    if (ipv4 === null) return null;
    tail = [Number(ipv4 >> 16n), Number(ipv4 & 0xffffn)];
    head = text.slice(0, lastColon + 1);
    if (!head.endsWith("::")) head = head.slice(0, -1);
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const explicit = left.length + right.length + tail.length;
  if (halves.length === 1 && explicit !== 8) return null;
  if (halves.length === 2 && explicit > 7) return null;
  const words: number[] = [];
  for (const g of left) words.push(parseInt(g, 16));
  for (let i = 0; i < 8 - explicit; i++) if (halves.length === 2) words.push(0);
  for (const g of right) words.push(parseInt(g, 16));
  words.push(...tail);
  if ([...left, ...right].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return words.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n);
}

const inRange = (value: bigint, bits: number, [base, prefix]: Range) =>
  value >> BigInt(bits - prefix) === base >> BigInt(bits - prefix);

const V4_NOT_PUBLIC: Range[] = (
  [
    ["0.0.0.0", 8], // "this network", unspecified
    ["10.0.0.0", 8], // private
    ["100.64.0.0", 10], // carrier-grade NAT
    ["127.0.0.0", 8], // loopback
    ["169.254.0.0", 16], // link-local (cloud metadata services live here)
    ["172.16.0.0", 12], // private
    ["192.0.0.0", 24], // IETF protocol assignments
    ["192.0.2.0", 24], // documentation
    ["192.88.99.0", 24], // 6to4 relay anycast
    ["192.168.0.0", 16], // private
    ["198.18.0.0", 15], // benchmarking
    ["198.51.100.0", 24], // documentation
    ["203.0.113.0", 24], // documentation
    ["224.0.0.0", 4], // multicast
    ["240.0.0.0", 4], // reserved, broadcast
  ] as const
).map(([a, p]) => [v4(a)!, p] as const);

const V6_NOT_PUBLIC: Range[] = (
  [
    ["2001::", 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID…)
    ["2001:db8::", 32], // documentation
    ["3fff::", 20], // documentation
  ] as const
).map(([a, p]) => [v6(a)!, p] as const);
const V6_GLOBAL_UNICAST: Range = [v6("2000::")!, 3];
const V6_MAPPED: Range = [v6("::ffff:0:0")!, 96];
const V6_NAT64: Range = [v6("64:ff9b::")!, 96];
const V6_6TO4: Range = [v6("2002::")!, 16];
const V6_LOOPBACK = v6("::1")!;

function publicV4(value: bigint): boolean {
  return !V4_NOT_PUBLIC.some((range) => inRange(value, 32, range));
}

/** True when `address` (an IPv4 or IPv6 literal, no brackets) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    const value = v4(address);
    return value !== null && publicV4(value);
  }
  if (family !== 6) return false;
  const value = v6(address);
  if (value === null) return false;
  if (inRange(value, 128, V6_MAPPED) || inRange(value, 128, V6_NAT64)) return publicV4(value & 0xffffffffn);
  if (inRange(value, 128, V6_6TO4)) return publicV4((value >> 80n) & 0xffffffffn);
  // Only global unicast (2000::/3) can be public: this refuses ::, ::1, fc00::/7, fe80::/10, ff00::/8 and the rest.
  if (!inRange(value, 128, V6_GLOBAL_UNICAST)) return false;
  return !V6_NOT_PUBLIC.some((range) => inRange(value, 128, range));
}

/** True for 127.0.0.0/8, `::1` and IPv4-mapped loopback: the only addresses the test-only loopback setting opens. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return inRange(v4(address) ?? 0n, 32, [v4("127.0.0.0")!, 8]);
  if (family !== 6) return false;
  const value = v6(address);
  if (value === null) return false;
  if (value === V6_LOOPBACK) return true;
  return inRange(value, 128, V6_MAPPED) && inRange(value & 0xffffffffn, 32, [v4("127.0.0.0")!, 8]);
}

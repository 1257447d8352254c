import { describe, expect, it } from "bun:test";
import { isLoopbackAddress, isPublicAddress } from "../public-address";

const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "172.15.255.255",
  "172.32.0.1",
  "100.63.255.255",
  "100.128.0.1",
  "192.169.0.1",
  "2606:4700:4700::1111",
  "2a00:1450:4001:80b::200e",
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "64:ff9b::808:808",
  "2002:0808:0808::1",
];

const NOT_PUBLIC = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "this network"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "carrier-grade NAT"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "IETF assignments"],
  ["192.0.2.1", "documentation"],
  ["192.88.99.1", "6to4 relay"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback, long form"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
  ["::ffff:10.0.0.1", "IPv4-mapped private"],
  ["::ffff:169.254.169.254", "IPv4-mapped link-local"],
  ["::127.0.0.1", "IPv4-compatible (deprecated)"],
  ["64:ff9b::a00:1", "NAT64 of a private address"],
  ["64:ff9b:1::1", "local-use NAT64"],
  ["2002:7f00:1::1", "6to4 of loopback"],
  ["2002:c0a8:101::1", "6to4 of a private address"],
  ["fc00::1", "unique local"],
  ["fd12:3456:789a::1", "unique local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local with a zone"],
  ["febf::1", "link-local"],
  ["fec0::1", "site-local (deprecated)"],
  ["ff02::1", "multicast"],
  ["ff05::2", "multicast"],
  ["100::1", "discard-only"],
  ["2001::1", "Teredo"],
  ["2001:2::1", "benchmarking"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["localhost", "not an address"],
  ["", "empty"],
  ["1.2.3", "malformed"],
  ["1.2.3.256", "malformed"],
] as const;

describe("isPublicAddress", () => {
  it.each(PUBLIC)("accepts the public unicast address %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
  it.each(NOT_PUBLIC)("refuses %s (%s)", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe("isLoopbackAddress", () => {
  it("names 127.0.0.0/8, ::1 and IPv4-mapped loopback, and nothing else", () => {
    const loopback = ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"];
    const other = ["10.0.0.1", "0.0.0.0", "::", "fe80::1", "8.8.8.8", "::ffff:10.0.0.1", "localhost"];
    expect(loopback.map(isLoopbackAddress)).toEqual(loopback.map(() => true));
    expect(other.map(isLoopbackAddress)).toEqual(other.map(() => false));
  });
});

import { describe, expect, it } from "bun:test";
import { isDependencyUnavailable } from "@amem/platform";

describe("isDependencyUnavailable", () => {
  it("treats a Redis Cluster mid-failover as an outage (503), not a bug (500)", () => {
    for (const message of [
      "CLUSTERDOWN The cluster is down",
      "TRYAGAIN Multiple keys request during rehashing of slot",
      "MOVED 3999 127.0.0.1:6381",
      "Failed to refresh slots cache.",
      "All keys in the pipeline should belong to the same slots allocation group",
    ])
      expect({ message, unavailable: isDependencyUnavailable(new Error(message)) }).toEqual({
        message,
        unavailable: true,
      });
  });

  it("leaves an ordinary error a bug", () => {
    expect(isDependencyUnavailable(new TypeError("x is not a function"))).toBe(false);
    expect(isDependencyUnavailable(new Error("ERR wrong number of arguments for 'set' command"))).toBe(false);
  });
});

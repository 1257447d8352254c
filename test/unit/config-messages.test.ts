import { describe, expect, it } from "bun:test";
import { ConfigError, ConfigSchema, loadConfig, configTable, withConfigTable } from "@amem/platform";

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

// Issue 19 defect 9: configuration failures name the setting and what it accepts, on one line.
describe("loadConfig messages", () => {
  it("name what a bad setting accepts, never TypeBox's wording", () => {
    expect(
      problems({ LOG_LEVEL: "loud", PORT: "http", RATE_LIMIT: "fast", MAIL_TRANSPORT: "pigeon", REDIS_PREFIX: "a:b" }),
    ).toEqual([
      "REDIS_PREFIX must be 1–64 letters, digits, _ or -",
      "PORT must be an integer from 0 to 65,535",
      "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent",
      "RATE_LIMIT must be off or an integer ≥ 1",
      "MAIL_TRANSPORT must be one of smtp, log, off",
    ]);
  });

  it("is one line however many settings are bad", () => {
    const error = new ConfigError(problems({ LOG_LEVEL: "loud", PORT: "http" }));
    expect(error.message).toBe(
      "invalid configuration: PORT must be an integer from 0 to 65,535; LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent",
    );
    expect(error.message).not.toContain("Expected");
  });

  it("refuses pool limits at or above DB_POOL_SIZE", () => {
    expect(problems({ DB_POOL_SIZE: "4", SEARCH_MAX_CONCURRENT: "4", EXPORT_MAX_CONCURRENT: "5" })).toEqual([
      "SEARCH_MAX_CONCURRENT: must be below DB_POOL_SIZE (4), or it could hold every pooled connection",
      "EXPORT_MAX_CONCURRENT: must be below DB_POOL_SIZE (4), or it could hold every pooled connection",
    ]);
    expect(problems({ DB_POOL_SIZE: "5", SEARCH_MAX_CONCURRENT: "4", EXPORT_MAX_CONCURRENT: "4" })).toEqual([]);
  });

  it("refuses an empty REDIS_URL or DATABASE_URL instead of falling back to the local default", () => {
    expect(problems({ REDIS_URL: "", DATABASE_URL: " " })).toEqual([
      "DATABASE_URL: set but empty; unset it for the default or name the server",
      "REDIS_URL: set but empty; unset it for the default or name the server",
    ]);
  });
});

describe("switches", () => {
  it("take on and off, and still accept true/false and 1/0", () => {
    for (const [on, off] of [
      ["on", "off"],
      ["true", "false"],
      ["1", "0"],
      ["ON", "Off"],
    ]) {
      const enabled = loadConfig({ TRUST_PROXY: on!, OAUTH_CIMD: on!, METRICS: on!, SCHEDULERS: on! });
      const disabled = loadConfig({ TRUST_PROXY: off!, OAUTH_CIMD: off!, METRICS: off!, SCHEDULERS: off! });
      expect([enabled.TRUST_PROXY, enabled.OAUTH_CIMD, enabled.METRICS, enabled.SCHEDULERS]).toEqual([
        true,
        "on",
        "on",
        "on",
      ]);
      expect([disabled.TRUST_PROXY, disabled.OAUTH_CIMD, disabled.METRICS, disabled.SCHEDULERS]).toEqual([
        false,
        "off",
        "off",
        "off",
      ]);
    }
    expect(problems({ TRUST_PROXY: "maybe", METRICS: "yes" })).toEqual([
      "TRUST_PROXY must be on or off",
      "METRICS must be on or off",
    ]);
  });
});

describe("README configuration table (bun run docs:config)", () => {
  it("is the table the schema generates", async () => {
    const readme = await Bun.file(new URL("../../README.md", import.meta.url)).text();
    expect(readme).toBe(withConfigTable(readme));
  });

  it("has a row for every setting", () => {
    const table = configTable();
    for (const key of Object.keys(ConfigSchema.properties)) expect(table).toContain(`| \`${key}\` |`);
  });
});

describe(".env.example", () => {
  it("names every setting, and leaves the public URLs to follow their ports", async () => {
    const example = await Bun.file(new URL("../../.env.example", import.meta.url)).text();
    const named = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    expect(Object.keys(ConfigSchema.properties).filter((key) => !named.has(key))).toEqual([]);
    // Set there, they would stay at the default ports once a copy's PORT or MCP_PORT is moved.
    expect(example).not.toMatch(/^(MCP_)?PUBLIC_URL=/m);
  });
});

import { describe, expect, it } from "bun:test";
import { ConfigError, loadConfig } from "@amem/platform";

/** Runs loadConfig and returns the ConfigError it throws (fails the test if it does not throw one). */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("loadConfig accepted a bad environment");
}

/** The keys a ConfigError names, in order. */
const keysNamed = (error: ConfigError) => error.problems.map((p) => p.split(/[:\s]/)[0]!);

describe("loadConfig", () => {
  it("fills every default from an empty environment", () => {
    expect(loadConfig({})).toEqual({
      DATABASE_URL: "postgres://postgres@127.0.0.1:5432/amem",
      REDIS_URL: "redis://127.0.0.1:6379/0",
      REDIS_PREFIX: "amem",
      PORT: 3000,
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      SESSION_LEASE_SECONDS: 86_400,
      SESSION_TTL_HOURS: 720,
      RATE_LIMIT: 6_000,
      RATE_LIMIT_IP: 600,
      RATE_LIMIT_LOGIN: 10,
      TRUST_PROXY: false,
      BODY_LIMIT_BYTES: 262_144,
      BODY_READ_TIMEOUT_MS: 10_000,
      FLUSH_INTERVAL_MS: 500,
      FLUSH_BATCH_SIZE: 1_000,
      FLUSH_PASS_BUDGET_MS: 500,
      DB_POOL_SIZE: 10,
      DEPENDENCY_TIMEOUT_MS: 2_000,
      SEARCH_MAX_CONCURRENT: 4,
      SEARCH_WAIT_MS: 2_000,
      SEARCH_LIST_BUDGET: 8_192,
      SEARCH_CANDIDATES: 32,
      EXPORT_TIMEOUT_MS: 600_000,
      EXPORT_PAGE_TIMEOUT_MS: 5_000,
      EXPORT_MAX_CONCURRENT: 2,
      PUBLIC_URL: "http://127.0.0.1:3000",
      MCP_PORT: 3001,
      MCP_HOST: "127.0.0.1",
      MCP_PUBLIC_URL: "http://127.0.0.1:3001",
      MCP_ALLOWED_HOSTS: [],
      MCP_ALLOWED_ORIGINS: [],
      MAIL_TRANSPORT: "off",
      MAIL_TIMEOUT_MS: 10_000,
      JOB_WAIT_MS: 10_000,
      JOB_KEEP_SECONDS: 3_600,
      JOB_LOCK_MS: 30_000,
      WORKER_CONCURRENCY_TRIAGE: 16,
      WORKER_CONCURRENCY_ACCOUNT: 2,
      WORKER_CONCURRENCY_MAINTENANCE: 1,
      SCHEDULERS: "on",
      SCHEDULER_CHECK_SECONDS: 60,
      SWEEP_EVERY_SECONDS: 300,
      ERASURE_FOLLOW_UP_SECONDS: 60,
      ERASURE_RESUME_AFTER_SECONDS: 600,
      CONSOLIDATE_EVERY_SECONDS: 3_600,
      CONSOLIDATE_PROBES_PER_RUN: 1_000,
      COMMITMENTS_SURFACE_EVERY_SECONDS: 900,
      GC_EVERY_SECONDS: 3_600,
      TRIAGE_MIN_ATTEMPT_AGE_SECONDS: 30,
      TRIAGE_MIN_TURNS: 3,
      TRIAGE_MIN_ELAPSED_MINUTES: 10,
      OAUTH_ACCESS_TTL_SECONDS: 3_600,
      OAUTH_REFRESH_TTL_SECONDS: 2_592_000,
      OAUTH_REFRESH_GRACE_SECONDS: 30,
      OAUTH_CODE_TTL_SECONDS: 60,
      OAUTH_CIMD: "off",
      OAUTH_CIMD_ALLOW_LOOPBACK_HTTP: false,
      OAUTH_CIMD_TIMEOUT_MS: 3_000,
      OAUTH_CIMD_MAX_BYTES: 5_120,
      OAUTH_CIMD_CACHE_MIN_SECONDS: 60,
      OAUTH_CIMD_CACHE_MAX_SECONDS: 86_400,
      OAUTH_CIMD_FAILURE_CACHE_SECONDS: 30,
      AMEM_BRIEFING_MAX_CHARS: 8_000,
      HOOK_BUDGET_MS: 1_500,
      METRICS: "on",
      METRICS_HOST: "127.0.0.1",
    });
  });

  it("reads the MCP allow-lists as comma lists and refuses a public URL with a path or a trailing slash", () => {
    const config = loadConfig({
      MCP_PUBLIC_URL: "https://mcp.example.test",
      MCP_ALLOWED_HOSTS: " proxy.internal , 10.0.0.5 ,",
      MCP_ALLOWED_ORIGINS: "https://app.example.test,http://lan.example.test:8080",
    });
    expect([config.MCP_PUBLIC_URL, config.MCP_ALLOWED_HOSTS, config.MCP_ALLOWED_ORIGINS]).toEqual([
      "https://mcp.example.test",
      ["proxy.internal", "10.0.0.5"],
      ["https://app.example.test", "http://lan.example.test:8080"],
    ]);
    for (const url of ["http://127.0.0.1:3001/", "https://mcp.example.test/mcp", "mcp.example.test"]) {
      expect(keysNamed(configError({ MCP_PUBLIC_URL: url }))).toEqual(["MCP_PUBLIC_URL"]);
    }
    expect(keysNamed(configError({ MCP_ALLOWED_ORIGINS: "app.example.test" }))).toEqual(["MCP_ALLOWED_ORIGINS"]);
  });

  it("moves a public address with its port when only the port is set, and keeps one that is set", () => {
    const moved = loadConfig({ PORT: "3340", MCP_PORT: "3341" });
    expect([moved.PUBLIC_URL, moved.MCP_PUBLIC_URL]).toEqual(["http://127.0.0.1:3340", "http://127.0.0.1:3341"]);
    const named = loadConfig({ MCP_PORT: "3341", MCP_PUBLIC_URL: "https://mcp.example.com", PORT: "0" });
    expect([named.PUBLIC_URL, named.MCP_PUBLIC_URL]).toEqual(["http://127.0.0.1:3000", "https://mcp.example.com"]);
  });

  it("leaves the optional keys unset by default (cron routes off, mail delivery off)", () => {
    const config = loadConfig({});
    expect("CRON_SECRET" in config).toBe(false);
    expect("SMTP_URL" in config).toBe(false);
    expect("MAIL_FROM" in config).toBe(false);
    expect(config.MAIL_TRANSPORT).toBe("off");
  });

  it("sends mail by SMTP once SMTP_URL is set, and needs MAIL_FROM for it", () => {
    const smtp = { SMTP_URL: "smtp://user:pass@mail.example.test:587", MAIL_FROM: "amem <no-reply@example.test>" };
    expect(loadConfig(smtp).MAIL_TRANSPORT).toBe("smtp");
    expect(loadConfig({ ...smtp, SMTP_URL: "smtps://mail.example.test" }).MAIL_TRANSPORT).toBe("smtp");
    expect(keysNamed(configError({ SMTP_URL: smtp.SMTP_URL }))).toEqual(["MAIL_FROM"]);
    expect(keysNamed(configError({ ...smtp, SMTP_URL: "http://mail.example.test" }))).toEqual(["SMTP_URL"]);
    expect(keysNamed(configError({ MAIL_TRANSPORT: "smtp", MAIL_FROM: smtp.MAIL_FROM }))).toEqual(["SMTP_URL"]);
  });

  it("refuses a MAIL_TRANSPORT that contradicts SMTP_URL", () => {
    const smtp = { SMTP_URL: "smtp://mail.example.test:587", MAIL_FROM: "no-reply@example.test" };
    expect(keysNamed(configError({ ...smtp, MAIL_TRANSPORT: "log" }))).toEqual(["MAIL_TRANSPORT"]);
    expect(keysNamed(configError({ ...smtp, MAIL_TRANSPORT: "off" }))).toEqual(["MAIL_TRANSPORT"]);
    expect(keysNamed(configError({ MAIL_TRANSPORT: "carrier-pigeon" }))).toEqual(["MAIL_TRANSPORT"]);
  });

  it("accepts the test-only CIMD loopback setting only outside production", () => {
    expect(loadConfig({ OAUTH_CIMD_ALLOW_LOOPBACK_HTTP: "true" }).OAUTH_CIMD_ALLOW_LOOPBACK_HTTP).toBe(true);
    expect(configError({ OAUTH_CIMD_ALLOW_LOOPBACK_HTTP: "true", NODE_ENV: "production" }).problems).toEqual([
      "OAUTH_CIMD_ALLOW_LOOPBACK_HTTP: test-only, refused when NODE_ENV=production",
    ]);
  });

  it("refuses a CIMD cache minimum above its maximum", () => {
    expect(configError({ OAUTH_CIMD_CACHE_MIN_SECONDS: "600", OAUTH_CIMD_CACHE_MAX_SECONDS: "60" }).problems).toEqual([
      "OAUTH_CIMD_CACHE_MIN_SECONDS: must not exceed OAUTH_CIMD_CACHE_MAX_SECONDS",
    ]);
  });

  it("accepts the development log transport only outside production", () => {
    expect(loadConfig({ MAIL_TRANSPORT: "log" }).MAIL_TRANSPORT).toBe("log");
    expect(loadConfig({ MAIL_TRANSPORT: "log", NODE_ENV: "development" }).MAIL_TRANSPORT).toBe("log");
    const refused = configError({ MAIL_TRANSPORT: "log", NODE_ENV: "production" });
    expect(keysNamed(refused)).toEqual(["MAIL_TRANSPORT"]);
    expect(refused.message).toContain("NODE_ENV=production");
  });

  it("treats an empty string as unset", () => {
    const config = loadConfig({ PORT: "", RATE_LIMIT: "", TRUST_PROXY: "", CRON_SECRET: "" });
    expect(config.PORT).toBe(3000);
    expect(config.RATE_LIMIT).toBe(6_000);
    expect(config.TRUST_PROXY).toBe(false);
    expect("CRON_SECRET" in config).toBe(false);
  });

  it("ignores variables it does not know", () => {
    const config = loadConfig({ HOME: "/root", AMEM_SOMETHING: "x" });
    expect("HOME" in config).toBe(false);
    expect("AMEM_SOMETHING" in config).toBe(false);
  });

  it("coerces integers and fractional numbers from strings", () => {
    const config = loadConfig({
      PORT: "8080",
      SESSION_LEASE_SECONDS: "0.5",
      SESSION_TTL_HOURS: "2",
      BODY_LIMIT_BYTES: "2048",
      FLUSH_INTERVAL_MS: "100",
      DB_POOL_SIZE: "20",
      DEPENDENCY_TIMEOUT_MS: "750",
      RATE_LIMIT_IP: "30",
      RATE_LIMIT_LOGIN: "5",
    });
    expect(config.PORT).toBe(8080);
    expect(config.SESSION_LEASE_SECONDS).toBe(0.5);
    expect(config.SESSION_TTL_HOURS).toBe(2);
    expect(config.BODY_LIMIT_BYTES).toBe(2048);
    expect(config.FLUSH_INTERVAL_MS).toBe(100);
    expect(config.DB_POOL_SIZE).toBe(20);
    expect(config.DEPENDENCY_TIMEOUT_MS).toBe(750);
    expect(config.RATE_LIMIT_IP).toBe(30);
    expect(config.RATE_LIMIT_LOGIN).toBe(5);
  });

  it("coerces booleans from true/false and 1/0", () => {
    expect(loadConfig({ TRUST_PROXY: "true" }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "false" }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "0" }).TRUST_PROXY).toBe(false);
  });

  it("rejects a boolean that is neither true/false nor 1/0", () => {
    for (const value of ["yes", "maybe", "TRUE!"]) {
      expect(keysNamed(configError({ TRUST_PROXY: value }))).toEqual(["TRUST_PROXY"]);
    }
  });

  it("accepts RATE_LIMIT off", () => {
    expect(loadConfig({ RATE_LIMIT: "off" }).RATE_LIMIT).toBe("off");
  });

  it("accepts RATE_LIMIT as a positive integer", () => {
    expect(loadConfig({ RATE_LIMIT: "3" }).RATE_LIMIT).toBe(3);
    expect(loadConfig({ RATE_LIMIT: "120000" }).RATE_LIMIT).toBe(120_000);
  });

  it("rejects RATE_LIMIT that is neither off nor a positive integer", () => {
    for (const value of ["0", "-5", "1.5", "fast", "OFF", "on"]) {
      expect({ value, keys: keysNamed(configError({ RATE_LIMIT: value })) }).toEqual({ value, keys: ["RATE_LIMIT"] });
    }
  });

  it("rejects non-numeric and fractional values for integer keys", () => {
    expect(keysNamed(configError({ PORT: "http" }))).toEqual(["PORT"]);
    expect(keysNamed(configError({ PORT: "80.5" }))).toEqual(["PORT"]);
    expect(keysNamed(configError({ SESSION_LEASE_SECONDS: "abc" }))).toEqual(["SESSION_LEASE_SECONDS"]);
  });

  it("rejects values outside their bounds", () => {
    expect(keysNamed(configError({ PORT: "70000" }))).toEqual(["PORT"]);
    expect(keysNamed(configError({ BODY_LIMIT_BYTES: "10" }))).toEqual(["BODY_LIMIT_BYTES"]);
    expect(keysNamed(configError({ FLUSH_INTERVAL_MS: "10000" }))).toEqual(["FLUSH_INTERVAL_MS"]);
    expect(keysNamed(configError({ SESSION_LEASE_SECONDS: "0" }))).toEqual(["SESSION_LEASE_SECONDS"]);
    expect(keysNamed(configError({ CRON_SECRET: "too-short" }))).toEqual(["CRON_SECRET"]);
    expect(keysNamed(configError({ REDIS_PREFIX: "has:colon" }))).toEqual(["REDIS_PREFIX"]);
    expect(keysNamed(configError({ LOG_LEVEL: "loud" }))).toEqual(["LOG_LEVEL"]);
  });

  it("names every bad key in one ConfigError", () => {
    const error = configError({
      PORT: "http",
      BODY_LIMIT_BYTES: "10",
      TRUST_PROXY: "maybe",
      RATE_LIMIT: "fast",
      LOG_LEVEL: "loud",
      SESSION_LEASE_SECONDS: "abc",
      DATABASE_URL: "postgres://ok@127.0.0.1/amem",
    });
    const bad = ["BODY_LIMIT_BYTES", "LOG_LEVEL", "PORT", "RATE_LIMIT", "SESSION_LEASE_SECONDS", "TRUST_PROXY"];
    expect([...new Set(keysNamed(error))].sort()).toEqual(bad);
    for (const key of bad) expect(error.message).toContain(key);
    expect(error.message).not.toContain("DATABASE_URL");
  });

  it("never repeats a bad value in its message (it may be a secret)", () => {
    const secret = "s3cr3t-but-short";
    const error = configError({ CRON_SECRET: secret.slice(0, 10), PORT: "port-s3cr3t" });
    expect(error.message).not.toContain(secret.slice(0, 10));
    expect(error.message).not.toContain("port-s3cr3t");
  });
});

import pino from "pino";

/**
 * JSON logs to stdout. Secrets, memory content and excerpts never reach a log line: the redact
 * list covers the header and body fields that could carry them, as a guard behind the rule of not
 * logging them in the first place.
 */
export function createLogger(level: string, base: Record<string, unknown> = {}, destination?: pino.DestinationStream) {
  return pino(
    {
      level,
      base: { ...base },
      redact: {
        paths: [
          "headers.authorization",
          'headers["x-api-key"]',
          'headers["x-cron-secret"]',
          "password",
          "token",
          "apiKey",
          "content",
          "lastMessageExcerpt",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
export type Logger = ReturnType<typeof createLogger>;

import type { Config, MailTransportName } from "./config";
import type { Logger } from "./logger";
import { createSmtpTransport } from "./mail/smtp-transport";

/** What the service mails: both carry a one-time token in their link. */
export const MAIL_KINDS = ["verify-email", "reset-password"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** One mail; the body is the intro, then the link on its own line. */
export type Mail = { kind: MailKind; to: string; subject: string; intro: string; link: string };

/** The one mailer interface (SPEC §2.5); services never know how mail leaves. */
export type Mailer = {
  /**
   * Delivers the mail. Resolves once it is delivered or its failure is logged, within
   * MAIL_TIMEOUT_MS; never rejects, so a relay outage never fails the caller's request.
   */
  send: (mail: Mail) => Promise<void>;
  /** Waits for the deliveries under way (each bounded), then releases the transport. */
  close: () => Promise<void>;
};

/** How mail leaves: `deliver` may throw; the mailer bounds, logs and swallows. */
export type MailTransport = {
  deliver: (mail: Mail, signal: AbortSignal) => Promise<void>;
  close: () => void;
};

/**
 * The mailer MAIL_TRANSPORT names, announced once at start: the SMTP relay (info), delivery off
 * (warn: nobody receives verification or reset mail) or the development log transport (warn:
 * one-time tokens go to the log). Only that last transport ever writes a link or a token to a log.
 */
export function createMailer(config: Config, logger: Logger, { announced = true } = {}): Mailer {
  const transport = createTransport(config.MAIL_TRANSPORT, config, logger);
  if (announced) announce(config, logger);
  const underway = new Set<Promise<void>>();
  return {
    send: (mail) => {
      const delivery = transport
        .deliver(mail, AbortSignal.timeout(config.MAIL_TIMEOUT_MS))
        .catch((err) =>
          logger.error({ mail: { kind: mail.kind }, err: describeMailError(err) }, "mail delivery failed"),
        )
        .finally(() => underway.delete(delivery));
      underway.add(delivery);
      return delivery;
    },
    close: async () => {
      await Promise.allSettled([...underway]);
      transport.close();
    },
  };
}

function createTransport(name: MailTransportName, config: Config, logger: Logger): MailTransport {
  switch (name) {
    case "smtp":
      return createSmtpTransport(config);
    case "log":
      return {
        deliver: async (mail) =>
          logger.warn(
            { mail: { kind: mail.kind, subject: mail.subject, link: mail.link } },
            "mail written to the log (MAIL_TRANSPORT=log, development only)",
          ),
        close: () => {},
      };
    case "off":
      return {
        deliver: async (mail) => logger.debug({ mail: { kind: mail.kind } }, "mail not sent (mail delivery is off)"),
        close: () => {},
      };
  }
}

function announce(config: Config, logger: Logger): void {
  switch (config.MAIL_TRANSPORT) {
    case "smtp": {
      // Host and port only: the URL's user info is the relay's password.
      const url = new URL(config.SMTP_URL!);
      const tls = url.protocol === "smtps:" ? "implicit" : "starttls-when-offered";
      logger.info({ mail: { transport: "smtp", relay: url.host, tls } }, "mail is sent through the SMTP relay");
      return;
    }
    case "log":
      logger.warn(
        { mail: { transport: "log" } },
        "MAIL_TRANSPORT=log is for DEVELOPMENT ONLY: every verification and password-reset link, with its " +
          "one-time token, is written to this log instead of being mailed",
      );
      return;
    case "off":
      logger.warn(
        { mail: { transport: "off" } },
        "mail delivery is OFF: verification and password-reset mail is not sent to anyone " +
          "(set SMTP_URL and MAIL_FROM to send it; MAIL_TRANSPORT=log writes it to the log in development)",
      );
      return;
  }
}

/**
 * What of a delivery failure may be logged: codes only. A relay's reply and nodemailer's
 * messages quote the recipient address (`550 <bob@…> unknown user`), and the mail itself carries
 * a one-time token, so neither the message nor the response is kept.
 */
export function describeMailError(error: unknown): Record<string, unknown> {
  const e = (error ?? {}) as Record<string, unknown>;
  const described: Record<string, unknown> = { name: String(e.name ?? "Error") };
  for (const field of ["code", "responseCode", "command", "timeoutType", "permanent"]) {
    if (e[field] !== undefined && typeof e[field] !== "object") described[field] = e[field];
  }
  return described;
}

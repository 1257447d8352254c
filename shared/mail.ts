import type { Logger } from "./logger";

export type Mail = { to: string; subject: string; link: string };

/** The one mailer interface (SPEC §2.5); services never know how mail leaves. */
export type Mailer = { send: (mail: Mail) => Promise<void> };

/**
 * Without an SMTP relay configured, mail is a log line carrying the link (local use). The
 * recipient is not logged; the link is, because reading it is the only way to use it locally.
 */
export function createLogMailer(logger: Logger): Mailer {
  return {
    send: async (mail) => {
      logger.info({ mail: { subject: mail.subject, link: mail.link } }, "mail (no SMTP relay configured)");
    },
  };
}

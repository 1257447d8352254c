import type { Deps } from "./deps";

export type Mail = { to: string; subject: string; link: string };

/**
 * The one mailer interface (SPEC §2.5). Without SMTP_URL the link goes to the log, for local use;
 * SMTP delivery arrives with the issue that needs real mail.
 */
export async function sendMail(deps: Deps, mail: Mail): Promise<void> {
  deps.logger.info({ mail: { subject: mail.subject, link: mail.link } }, "mail (no SMTP_URL configured)");
}

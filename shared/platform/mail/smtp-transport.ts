import nodemailer from "nodemailer";
import type { Config } from "../config";
import type { Mail, MailTransport } from "../mail";

/** Plain text: the intro, then the link alone on its line (so every client makes it clickable). */
export function mailBody(mail: Mail): string {
  return `${mail.intro}\n\n${mail.link}\n`;
}

/**
 * Delivery through the SMTP relay of SMTP_URL (nodemailer): one connection per mail (mail is
 * rare: a signup or a reset), STARTTLS whenever the relay offers it (`?requireTLS=true` in the URL
 * insists on it), implicit TLS for `smtps://`. Every wait — connect, greeting, each reply — is
 * bounded by MAIL_TIMEOUT_MS, and the mailer's abort signal bounds the whole send.
 */
export function createSmtpTransport(config: Config): MailTransport {
  const timeoutMs = config.MAIL_TIMEOUT_MS;
  const transporter = nodemailer.createTransport(
    {
      url: config.SMTP_URL,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      // nodemailer's own logger would print the SMTP dialogue, the message (and its token) included.
      logger: false,
      debug: false,
    },
    { from: config.MAIL_FROM },
  );
  return {
    deliver: async (mail, signal) => {
      await transporter.sendMail({ to: mail.to, subject: mail.subject, text: mailBody(mail), signal });
    },
    close: () => transporter.close(),
  };
}

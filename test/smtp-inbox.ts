import { SMTPServer } from "smtp-server";
import { freePort } from "./free-port";

/** A message as the relay received it: envelope, the login used, and the decoded text body. */
export type ReceivedMail = {
  login: string | null;
  envelopeFrom: string;
  envelopeTo: string[];
  headers: Record<string, string>;
  text: string;
};

export type SmtpInbox = {
  /** SMTP_URL for the service, with the relay's login. */
  url: string;
  mails: ReceivedMail[];
  stop: () => Promise<void>;
};

export const RELAY_USER = "amem-relay";
export const RELAY_PASSWORD = "relay-password-not-for-logs";

/**
 * A real SMTP server (smtp-server, from the nodemailer project) on a free loopback port, requiring
 * a login as a relay does. `rejectRecipients` makes it refuse every RCPT TO with 550, quoting the
 * address, as real relays do.
 */
export async function startSmtpInbox(options: { rejectRecipients?: boolean } = {}): Promise<SmtpInbox> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    logger: false,
    // Loopback only; a TLS relay is nodemailer's business, the plain dialogue is what is tested here.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === RELAY_USER && auth.password === RELAY_PASSWORD)
        return callback(null, { user: auth.username });
      callback(new Error("535 authentication failed"));
    },
    onRcptTo(address, _session, callback) {
      if (!options.rejectRecipients) return callback();
      const error = Object.assign(new Error(`<${address.address}>: unknown user`), { responseCode: 550 });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({
          login: typeof session.user === "string" ? session.user : null,
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          ...parseMessage(Buffer.concat(chunks).toString("latin1")),
        });
        callback();
      });
    },
  });
  const port = freePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    url: `smtp://${RELAY_USER}:${RELAY_PASSWORD}@127.0.0.1:${port}`,
    mails,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Headers (unfolded, lower-case names) and the text body, decoded as a mail client would. */
function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf("\r\n\r\n");
  const headers: Record<string, string> = {};
  for (const line of raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, " ")
    .split("\r\n")) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = raw.slice(split + 4);
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  const bytes =
    encoding === "quoted-printable"
      ? Buffer.from(
          body
            .replace(/=\r\n/g, "")
            .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          "latin1",
        )
      : encoding === "base64"
        ? Buffer.from(body, "base64")
        : Buffer.from(body, "latin1");
  return { headers, text: bytes.toString("utf8").replace(/\r\n/g, "\n") };
}

/**
 * A relay that accepts connections and never says a word (a hung relay): every delivery to it
 * must end by the mailer's own bound.
 */
export function startSilentRelay(): { url: string; stop: () => void } {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  return { url: `smtp://127.0.0.1:${listener.port}`, stop: () => listener.stop(true) };
}

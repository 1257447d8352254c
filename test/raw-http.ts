import net from "node:net";
import type { TestContext } from "./helpers";
import { serveApi } from "../api/serve";

export type RawResponse = {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
  elapsedMs: number;
};

/**
 * Serves the context's app on a loopback port exactly as api/main.ts does (serveApi); stopped
 * before the context closes. Returns the port.
 */
export function serveOnLoopback(ctx: TestContext): number {
  const server = serveApi(ctx.app, { ...ctx.config, HOST: "127.0.0.1", PORT: 0 }, ctx.deps.logger);
  ctx.onClose(async () => void server.stop(true));
  return server.port!;
}

function parse(raw: Buffer, closed: boolean, elapsedMs: number): RawResponse | null {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine!.split(" ")[1]);
  const rest = raw.subarray(end + 4);
  const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  if (length !== undefined && rest.length < length && !closed) return null;
  const body = (length === undefined ? rest : rest.subarray(0, length)).toString("utf8");
  return { status, headers, body, closed, elapsedMs };
}

/**
 * Writes raw bytes to the server over TCP and reads one answer: what a client that frames its
 * request badly actually gets (`fetch` would refuse to send most of these). Resolves when the
 * answer is complete and the server has closed the connection, or at `waitMs` with what arrived
 * (`null` status when nothing did). `expectClose: false` resolves on a complete answer.
 */
export function rawRequest(
  port: number,
  bytes: string | Uint8Array,
  options: { waitMs?: number; expectClose?: boolean } = {},
): Promise<RawResponse | { status: null; raw: string; elapsedMs: number }> {
  const { waitMs = 5_000, expectClose = true } = options;
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      const raw = Buffer.concat(chunks);
      const parsed = parse(raw, closed, performance.now() - started);
      if (!closed && (!parsed || expectClose)) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parsed ?? { status: null, raw: raw.toString("latin1"), elapsedMs: performance.now() - started });
    };
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      const raw = Buffer.concat(chunks);
      resolve(
        parse(raw, false, performance.now() - started) ?? {
          status: null,
          raw: raw.toString("latin1"),
          elapsedMs: performance.now() - started,
        },
      );
    }, waitMs);
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      finish(false);
    });
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    // A reset after the answer still leaves the answer readable; a reset before it is a failure.
    socket.on("error", () => finish(true));
  });
}

/** An HTTP/1.1 request head; `Connection: close` unless the headers say otherwise. */
export function head(method: string, target: string, headers: Record<string, string> = {}): string {
  const all = { host: "127.0.0.1", connection: "close", ...headers };
  return `${method} ${target} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;
}

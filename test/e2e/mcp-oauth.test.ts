import { beforeAll, describe, expect, it } from "bun:test";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { openSession } from "@amem/core";
import { sha256Hex } from "@amem/platform";
import { createTestContext, newTenant, principalOf } from "../helpers";
import { ApiProcess } from "../faults/api-process";
import { WorkerProcess } from "../faults/worker-process";
import { authorizeQuery, followAuthorization, pkcePair, registerOAuthClient } from "../oauth-flow";
import { McpProcess } from "./mcp-process";
import { HeadlessOAuthProvider } from "./oauth-provider";

/*
 * The whole OAuth + MCP story between real processes: `bun mcp/main.ts` (twice: the default
 * one-hour access tokens, and one-second ones for the refresh), `bun api/main.ts` and
 * `bun workers/main.ts` (account erasure is a job), all on one Redis prefix and the test database.
 * The client is the official SDK v2 `Client` + `StreamableHTTPClientTransport` with an
 * OAuthClientProvider; only the user's browser is played by the test (test/oauth-flow.ts posts the
 * login and consent forms with their CSRF fields).
 */
const ctx = await createTestContext();
const mcp = new McpProcess(ctx.config);
// OAUTH_ACCESS_TTL_SECONDS' minimum (1) is low enough: no config change needed for this test.
const shortLived = new McpProcess(ctx.config, { OAUTH_ACCESS_TTL_SECONDS: "1" });
const api = new ApiProcess(ctx.config);
const workers = new WorkerProcess(ctx.config);

// Stopped before the context deletes the prefix and closes its connections.
ctx.onClose(async () => void (await Promise.all([mcp.stop(), shortLived.stop(), api.stop(), workers.stop()])));
beforeAll(async () => {
  await Promise.all([mcp.start(), shortLived.start(), api.start(), workers.start()]);
}, 30_000);

type Exchange = { method: string; url: string; status: number; wwwAuthenticate: string | null; body?: string };
type Result = { isError?: boolean; structuredContent?: any; content?: { type: string; text?: string }[] };

/** One signed-in SDK client, with every HTTP exchange its transport made (auth requests included). */
class Session {
  readonly provider = new HeadlessOAuthProvider();
  readonly exchanges: Exchange[] = [];
  client = new Client({ name: "amem-e2e", version: "1.0.0" });
  transport: StreamableHTTPClientTransport;

  constructor(
    readonly server: McpProcess,
    readonly user: { email: string; password: string },
    /** The origin the client is given: the server's public URL, or another name for it. */
    readonly origin = server.url,
  ) {
    this.transport = this.newTransport();
  }

  newTransport(): StreamableHTTPClientTransport {
    return new StreamableHTTPClientTransport(new URL(`${this.origin}/mcp`), {
      authProvider: this.provider,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        this.exchanges.push({
          method: init?.method ?? "GET",
          url: String(url),
          status: response.status,
          wwwAuthenticate: response.headers.get("www-authenticate"),
          body: init?.body instanceof URLSearchParams || typeof init?.body === "string" ? String(init.body) : undefined,
        });
        return response;
      },
    });
  }

  /**
   * The user's browser: opens the URL the SDK asked for, signs in, allows. `scope` replaces what the
   * client asked for (the user consents to less). Checks `state` and `iss` before the SDK sees the
   * callback, then `finishAuth` exchanges the code and the client reconnects on a new transport.
   */
  async authorize(scope?: string): Promise<URL> {
    const url = new URL(this.provider.pendingUrl);
    if (scope !== undefined) url.searchParams.set("scope", scope);
    const callback = await followAuthorization(fetch, url, this.user);
    expect(callback.origin + callback.pathname).toBe(this.provider.redirectUrl);
    expect([callback.searchParams.get("state"), callback.searchParams.get("iss")]).toEqual([
      this.provider.lastState!,
      this.server.url,
    ]);
    await this.transport.finishAuth(callback.searchParams);
    await this.client.close();
    this.client = new Client({ name: "amem-e2e", version: "1.0.0" });
    this.transport = this.newTransport();
    await this.client.connect(this.transport);
    return callback;
  }

  /** Discovery, registration, the browser leg, finishAuth, reconnect. */
  async signIn(scope?: string): Promise<void> {
    await expect(this.client.connect(this.transport)).rejects.toBeInstanceOf(UnauthorizedError);
    await this.authorize(scope);
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<Result> {
    return (await this.client.callTool({ name, arguments: args })) as Result;
  }

  async ok(name: string, args: Record<string, unknown> = {}): Promise<any> {
    const result = await this.call(name, args);
    expect([name, result.isError]).toEqual([name, undefined]);
    expect(JSON.parse(result.content![0]!.text!)).toEqual(result.structuredContent);
    return result.structuredContent;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** A raw initialize on /mcp with a bearer token, as any client's next request would be. */
function initialize(server: McpProcess, token: string): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
}
const invalidToken = (server: McpProcess) =>
  `Bearer error="invalid_token", resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="memory:read memory:write"`;
const userOf = async () => ({ ...(await newTenant(ctx)), password: "correct horse battery" });

describe("MCP over OAuth with the official SDK client (real mcp process)", () => {
  it("signs in when given localhost while MCP_PUBLIC_URL names 127.0.0.1, with a token bound to the public resource", async () => {
    const user = await userOf();
    const localhost = mcp.url.replace("127.0.0.1", "localhost");
    const session = new Session(mcp, user, localhost);
    await session.signIn();
    const seen = session.exchanges.map((e) => `${e.method} ${e.url.split("?")[0]} ${e.status}`);
    // The resource as the client named it; the authorization server stays the issuer.
    expect(seen.slice(0, 3)).toEqual([
      `POST ${localhost}/mcp 401`,
      `GET ${localhost}/.well-known/oauth-protected-resource/mcp 200`,
      `GET ${mcp.url}/.well-known/oauth-authorization-server 200`,
    ]);
    expect(session.provider.pendingUrl.searchParams.get("resource")).toBe(`${localhost}/mcp`);
    expect(
      (await session.ok("remember", { memoryType: "note", topic: "Host", content: "Typed localhost." })).memory,
    ).toMatchObject({ topic: "Host" });
    // The token serves the public name too: one resource, two loopback names for it.
    const token = session.provider.tokens()!.access_token;
    expect((await initialize(mcp, token)).status).toBe(200);
    await session.close();
  });

  it("discovers, registers, signs in through the pages, finishes auth and calls every tool, both prompts and the resource", async () => {
    const user = await userOf();
    const session = new Session(mcp, user);
    await session.signIn();

    // Discovery from the 401 challenge, RFC 8414 metadata, dynamic registration, then the code exchange.
    const paths = session.exchanges.map((e) => `${e.method} ${new URL(e.url).pathname} ${e.status}`);
    expect(paths.slice(0, 4)).toEqual([
      "POST /mcp 401",
      "GET /.well-known/oauth-protected-resource/mcp 200",
      "GET /.well-known/oauth-authorization-server 200",
      "POST /register 201",
    ]);
    expect(paths).toContain("POST /token 200");
    const authorization = session.provider.pendingUrl;
    expect(Object.fromEntries(authorization.searchParams)).toEqual({
      response_type: "code",
      client_id: session.provider.clientInformation()!.client_id,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: "S256",
      redirect_uri: session.provider.redirectUrl,
      state: session.provider.lastState!,
      scope: "memory:read memory:write",
      resource: `${mcp.url}/mcp`,
    });
    expect(session.provider.saved.length).toBe(1);
    expect(session.provider.tokens()).toEqual({
      access_token: expect.stringMatching(/^amem_at_/),
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^amem_rt_/),
      scope: "memory:read memory:write",
      issuer: mcp.url,
    });

    const { tools } = await session.client.listTools();
    const called = new Set<string>();
    const ok = async (name: string, args: Record<string, unknown> = {}) => {
      called.add(name);
      return session.ok(name, args);
    };
    const word = `kestrel${crypto.randomUUID().slice(0, 8)}`;
    const environment = await ok("describe_environment");
    expect(environment.account).toEqual({ id: user.userId, email: user.email });
    expect(environment.client).toEqual({
      clientId: session.provider.clientInformation()!.client_id,
      scopes: ["memory:read", "memory:write"],
    });
    const created = await ok("remember", {
      memoryType: "fact",
      topic: "database",
      content: `the ${word} service stores memories in postgres`,
      project: "e2e-project",
      facts: [{ subject: word, predicate: "database", value: "postgres" }],
    });
    const commitment = await ok("remember", {
      memoryType: "commitment",
      topic: "release",
      content: `ship ${word} 1.0`,
      project: "e2e-project",
    });
    const open = await ok("remember", {
      memoryType: "commitment",
      topic: "docs",
      content: `document ${word}`,
      project: "e2e-project",
    });
    const found = await ok("search", { query: `${word} postgres` });
    expect(found.items.map((i: { memory: { id: string } }) => i.memory.id)).toContain(created.memory.id);
    expect((await ok("get_memories", { ids: [created.memory.id] })).items[0].id).toBe(created.memory.id);
    const revised = await ok("revise", { id: created.memory.id, content: `the ${word} service runs postgres 17` });
    expect((await ok("resolve", { id: commitment.memory.id, status: "resolved" })).commitment.status).toBe("resolved");
    const briefing = await ok("briefing", { kind: "project", project: "e2e-project" });
    expect(briefing.selector).toEqual({ kind: "project", project: "e2e-project" });
    expect(briefing.sections.commitments.items.map((i: { id: string }) => i.id)).toEqual([open.memory.id]);
    expect((await ok("get_facts", { subject: word })).items.map((f: { value: string }) => f.value)).toEqual([
      "postgres",
    ]);
    expect((await ok("configure_scope", { action: "create", name: "e2e-scope" })).scope.name).toBe("e2e-scope");
    expect((await ok("review_proposals", { action: "list" })).proposals).toEqual([]);
    const resource = await session.client.readResource({ uri: `amem://memory/${revised.memory.id}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text).id).toBe(revised.memory.id);
    await ok("archive", { id: revised.memory.id });
    expect([...called].sort()).toEqual(tools.map((t) => t.name).sort());

    const prompts = await session.client.listPrompts();
    expect(prompts.prompts.map((p) => p.name).sort()).toEqual(["briefing", "debrief"]);
    const brief = await session.client.getPrompt({ name: "briefing", arguments: { project: "e2e-project" } });
    expect((brief.messages[0]!.content as { text: string }).text).toContain(open.memory.id);
    const sessionId = crypto.randomUUID();
    await openSession(ctx.deps, principalOf(user), { agent: "claude-code", sessionId, source: "startup" });
    const debrief = await session.client.getPrompt({ name: "debrief", arguments: { agent: "claude-code", sessionId } });
    expect((debrief.messages[0]!.content as { text: string }).text).toContain("<data>");
    const templates = await session.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(["amem://memory/{id}"]);

    // Writes through MCP carry the actor `mcp`.
    const actors = await ctx.deps.sql`select distinct actor from memory_events where user_id = ${user.userId}`;
    expect(actors.map((r) => r.actor)).toEqual(["mcp"]);
    // One token pair for the whole session: nothing expired, nothing refreshed.
    expect(session.provider.saved.length).toBe(1);
    await session.close();
  }, 30_000);

  it("refreshes silently once the access token expires: a new pair in the provider, the old access token refused", async () => {
    const session = new Session(shortLived, await userOf());
    await session.signIn();
    const first = session.provider.tokens()!;
    expect(first.expires_in).toBe(1);
    const issuedAt = Date.now();
    expect((await session.ok("describe_environment")).client.scopes).toEqual(["memory:read", "memory:write"]);
    // The access token lives one second by configuration; waiting it out is the point of the test.
    await Bun.sleep(Math.max(0, issuedAt + 1_100 - Date.now()));

    const exchangesBefore = session.exchanges.length;
    await session.ok("search", { query: "anything" });
    const after = session.exchanges.slice(exchangesBefore).map((e) => ({
      call: `${e.method} ${new URL(e.url).pathname} ${e.status}`,
      grant: e.body?.startsWith("grant_type=") ? new URLSearchParams(e.body).get("grant_type") : null,
      wwwAuthenticate: e.wwwAuthenticate,
    }));
    expect(after).toEqual([
      { call: "POST /mcp 401", grant: null, wwwAuthenticate: invalidToken(shortLived) },
      { call: "POST /token 200", grant: "refresh_token", wwwAuthenticate: null },
      { call: "POST /mcp 200", grant: null, wwwAuthenticate: null },
    ]);
    const second = session.provider.tokens()!;
    expect(session.provider.saved.length).toBe(2);
    expect([second.access_token, second.refresh_token, second.expires_in]).toEqual([
      expect.stringMatching(/^amem_at_/),
      expect.stringMatching(/^amem_rt_/),
      1,
    ]);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const [spent] = await ctx.deps.sql`
      select rotated_at is not null as rotated from oauth_tokens where token_hash = ${sha256Hex(first.refresh_token!)}`;
    expect(spent!.rotated).toBe(true);
    const old = await initialize(shortLived, first.access_token);
    expect([old.status, old.headers.get("www-authenticate"), await old.text()]).toEqual([
      401,
      invalidToken(shortLived),
      '{"error":"unauthorized"}',
    ]);
    await session.close();
  }, 30_000);

  it("steps up: a memory:read client calling remember gets 403 insufficient_scope, re-authorises for memory:write and succeeds", async () => {
    const session = new Session(mcp, await userOf());
    await session.signIn("memory:read");
    expect(session.provider.tokens()!.scope).toBe("memory:read");
    await session.ok("search", { query: "anything" });

    const exchangesBefore = session.exchanges.length;
    const args = { memoryType: "decision", topic: "t", content: `stepped up ${crypto.randomUUID()}` };
    await expect(session.call("remember", args)).rejects.toBeInstanceOf(UnauthorizedError);
    const refused = session.exchanges[exchangesBefore]!;
    expect([refused.status, refused.wwwAuthenticate]).toEqual([
      403,
      `Bearer error="insufficient_scope", error_description="Insufficient scope", scope="memory:write", resource_metadata="${mcp.url}/.well-known/oauth-protected-resource/mcp"`,
    ]);
    expect(session.provider.pendingUrl.searchParams.get("scope")).toBe("memory:read memory:write");

    await session.authorize();
    expect(session.provider.tokens()!.scope).toBe("memory:read memory:write");
    const remembered = await session.ok("remember", args);
    expect(remembered.memory.content).toBe(args.content);
    await session.close();
  }, 30_000);
});

describe("account erasure of a user signed in through MCP (real api, workers and mcp processes)", () => {
  it("reports the OAuth codes and tokens it removed, and the next /mcp request with the token is 401", async () => {
    const user = await userOf();
    const session = new Session(mcp, user);
    await session.signIn();
    await session.ok("remember", { memoryType: "decision", topic: "t", content: `erase me ${crypto.randomUUID()}` });
    // A sign-in the user abandoned after consenting: its code was never exchanged.
    const abandoned = await registerOAuthClient(fetch, mcp.url, { redirect_uris: ["http://127.0.0.1:9/cb"] });
    const back = await followAuthorization(
      fetch,
      new URL(
        `${mcp.url}/authorize?${authorizeQuery({
          clientId: abandoned.client_id,
          redirectUri: "http://127.0.0.1:9/cb",
          codeChallenge: pkcePair().challenge,
        })}`,
      ),
      user,
    );
    expect(back.searchParams.get("code")).toMatch(/^amem_ac_/);
    const { access_token } = session.provider.tokens()!;
    expect((await initialize(mcp, access_token)).status).toBe(200);

    const response = await fetch(`${api.url}/api/v1/account`, {
      method: "DELETE",
      headers: { "x-api-key": user.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ confirm: true }),
    });
    const next = await initialize(mcp, access_token);
    expect([response.status, await response.json()]).toEqual([
      200,
      {
        deleted: true,
        alreadyDeleted: false,
        erased: {
          agentSessions: 0,
          apiKeysRevoked: 1,
          commitments: 0,
          // The account was created unverified, with its verification token.
          emailVerificationTokensDeleted: 1,
          factProposals: 0,
          facts: 0,
          memories: 1,
          // The code the SDK exchanged (kept, spent, to detect a replay) and the abandoned one.
          oauthCodesDeleted: 2,
          // The SDK client's access and refresh tokens.
          oauthTokensRevoked: 2,
          passwordResetTokensDeleted: 0,
          proposals: 0,
          sessionsDeleted: 0,
        },
      },
    ]);
    expect([next.status, next.headers.get("www-authenticate"), await next.text()]).toEqual([
      401,
      invalidToken(mcp),
      '{"error":"unauthorized"}',
    ]);
    // The SDK client cannot get back in either: its refresh is refused (the grant was revoked), it
    // drops its tokens and sends the user to sign in again.
    const urlsBefore = session.provider.authorizationUrls.length;
    await expect(session.call("search", { query: "x" })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(session.provider.invalidated).toEqual(["tokens"]);
    expect(session.provider.authorizationUrls.length).toBe(urlsBefore + 1);
    await session.close().catch(() => {});
  }, 30_000);
});

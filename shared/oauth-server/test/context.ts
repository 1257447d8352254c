import { Elysia } from "elysia";
import { createTestContext, newTenant, type TestContext } from "../../../test/helpers";
import type { Logger } from "@amem/platform";
import { errorsPlugin } from "@amem/http";
import { oauthRoutes } from "../http/routes";
import type { Fetch } from "../../../test/oauth-flow";

export const ISSUER = "http://127.0.0.1:3001";
export const PASSWORD = "correct horse battery";

export type OAuthTestContext = TestContext & { oauth: ReturnType<typeof oauthApp>; fetch: Fetch; base: string };

export function oauthApp(ctx: TestContext, issuer: string = ISSUER) {
  return new Elysia()
    .use(errorsPlugin(ctx.deps.logger, () => []))
    .use(oauthRoutes({ ...ctx.deps, clientIp: () => "203.0.113.7" }, { issuer }));
}

/**
 * The api's test context plus an app mounting the authorization server alone (the MCP process
 * mounts the same plugin), driven in process at ISSUER.
 */
export async function createOAuthTestContext(
  overrides: Record<string, string> = {},
  issuer = ISSUER,
  logger?: Logger,
): Promise<OAuthTestContext> {
  const ctx = await createTestContext(overrides, logger);
  const oauth = oauthApp(ctx, issuer);
  const fetch: Fetch = (url, init) => oauth.handle(new Request(url, init));
  return { ...ctx, oauth, fetch, base: issuer };
}

/** An in-process fetch against the authorization server mounted on the context's deps. */
export function oauthFetch(ctx: TestContext, issuer: string = ISSUER): Fetch {
  const app = oauthApp(ctx, issuer);
  return (url, init) => app.handle(new Request(url, init));
}

export async function newUser(ctx: TestContext) {
  const tenant = await newTenant(ctx);
  return { ...tenant, password: PASSWORD };
}

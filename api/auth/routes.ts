import { Elysia, t } from "elysia";
import type { Deps } from "../../shared/deps";
import { createUser, login, logout } from "../../shared/accounts/users";
import { enforceRateLimit } from "../../shared/rate-limit";
import { iso } from "../../shared/time";
import { authPlugin } from "../plugins/auth";
import { clientIp } from "../client-ip";
import { errors } from "../schemas";
import { Identity, LoginBody, LoginResponse, SignupBody } from "./model";

/** Signup, login and logout: the bearer-session half of SPEC §2.3. */
export function authRoutes(deps: Deps) {
  const limitIp = (request: Request, server: Parameters<typeof clientIp>[1], bucket: string, limit: number) =>
    enforceRateLimit(deps, `${bucket}:${clientIp(request, server, deps.config.TRUST_PROXY)}`, limit);
  return new Elysia({ name: "auth-routes", prefix: "/auth", detail: { tags: ["auth"] } })
    .post(
      "/signup",
      async ({ body, status, request, server }) => {
        await limitIp(request, server, "ip", deps.config.RATE_LIMIT_IP);
        const user = await createUser(deps, { email: body.email, password: body.password });
        return status(201, { id: user.id, email: user.email });
      },
      { body: SignupBody, response: { 201: Identity, ...errors(400, 409, 413, 415, 429, 503) }, detail: { security: [] } },
    )
    .post(
      "/login",
      async ({ body, request, server }) => {
        await limitIp(request, server, "login", deps.config.RATE_LIMIT_LOGIN);
        const session = await login(deps, body.email, body.password);
        return { token: session.token, expiresAt: iso(session.expiresAt) };
      },
      { body: LoginBody, response: { 200: LoginResponse, ...errors(400, 401, 413, 415, 429, 503) }, detail: { security: [] } },
    )
    .use(authPlugin(deps))
    .post(
      "/logout",
      async ({ principal, set }) => {
        await logout(deps, principal);
        set.status = 204;
      },
      { detail: { security: [{ bearer: [] }] }, response: { 204: t.Void({ description: "Logged out" }), ...errors(400, 401, 503) } },
    );
}

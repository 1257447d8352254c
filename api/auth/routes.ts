import { Elysia, t } from "elysia";
import {
  createUser,
  login,
  logout,
  enforceRateLimit,
  type ApiDeps,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoBody,
  NoQuery,
  Accepted,
  ForgotPasswordBody,
  Identity,
  LoginBody,
  LoginResponse,
  ResetPasswordBody,
  SignupBody,
  VerifyEmailBody,
  requestPasswordReset,
  resetPassword,
  verifyEmail,
} from "@amem/core";
import { iso, loggableError } from "@amem/platform";
import { authPlugin } from "../plugins/auth";

/** Signup, login and logout: the bearer-session half of SPEC §2.3. */
export function authRoutes(deps: ApiDeps) {
  const limitIp = (request: Request, bucket: string, limit: number) =>
    enforceRateLimit(deps, `${bucket}:${deps.clientIp(request)}`, limit);
  return new Elysia({ name: "auth-routes", prefix: "/auth", detail: { tags: ["auth"] } })
    .post(
      "/signup",
      async ({ body, status, request, set }) => {
        await limitIp(request, "ip", deps.config.RATE_LIMIT_IP);
        const user = await createUser(deps, { email: body.email, password: body.password });
        set.headers["cache-control"] = "no-store";
        return status(201, { id: user.id, email: user.email });
      },
      {
        body: SignupBody,
        query: NoQuery,
        response: {
          201: Identity,
          ...errors("invalid_input", ...BODY_CODES, "conflict", "rate_limited", "unavailable"),
        },
        detail: { security: [] },
      },
    )
    .post(
      "/login",
      async ({ body, request, set }) => {
        await limitIp(request, "login", deps.config.RATE_LIMIT_LOGIN);
        const session = await login(deps, body.email, body.password);
        // A bearer token: no cache may keep it (RFC 6749 §5.1 asks the same of OAuth's token answer).
        set.headers["cache-control"] = "no-store";
        return { token: session.token, expiresAt: iso(session.expiresAt) };
      },
      {
        body: LoginBody,
        query: NoQuery,
        response: {
          200: LoginResponse,
          ...errors("invalid_input", ...BODY_CODES, "unauthorized", "rate_limited", "unavailable"),
        },
        detail: { security: [] },
      },
    )
    .post(
      "/verify-email",
      async ({ body, request, set }) => {
        // A token guessed per request: as bounded per IP as any other unauthenticated attempt.
        await limitIp(request, "verify", deps.config.RATE_LIMIT_IP);
        await verifyEmail(deps, body.token);
        set.status = 204;
      },
      {
        body: VerifyEmailBody,
        query: NoQuery,
        response: {
          204: t.Void({ description: "Verified" }),
          ...errors("invalid_input", ...BODY_CODES, "unauthorized", "rate_limited", "unavailable"),
        },
        detail: { security: [] },
      },
    )
    .post(
      "/forgot-password",
      async ({ body, request, status, set }) => {
        // Its own bucket: reset requests from an IP do not use up its signups.
        await limitIp(request, "forgot", deps.config.RATE_LIMIT_IP);
        const requestId = String(set.headers["x-request-id"]);
        // Not awaited: the answer and its timing must not reveal whether the email is registered.
        requestPasswordReset(deps, body.email).catch((err) =>
          deps.logger.error({ requestId, err: loggableError(err) }, "password reset failed"),
        );
        return status(202, { accepted: true as const });
      },
      {
        body: ForgotPasswordBody,
        query: NoQuery,
        response: { 202: Accepted, ...errors("invalid_input", ...BODY_CODES, "rate_limited") },
        detail: { security: [] },
      },
    )
    .post(
      "/reset-password",
      async ({ body, request, set }) => {
        // Its own bucket: a flood of reset attempts does not lock the IP's people out of login.
        await limitIp(request, "reset", deps.config.RATE_LIMIT_LOGIN);
        await resetPassword(deps, body.token, body.password);
        set.status = 204;
      },
      {
        body: ResetPasswordBody,
        query: NoQuery,
        response: {
          204: t.Void({ description: "Password changed; every bearer session revoked" }),
          ...errors("invalid_input", ...BODY_CODES, "unauthorized", "rate_limited", "unavailable"),
        },
        detail: { security: [] },
      },
    )
    .use(authPlugin(deps))
    .post(
      "/logout",
      async ({ principal, set }) => {
        await logout(deps, principal);
        set.status = 204;
      },
      {
        query: NoQuery,
        body: NoBody,
        detail: { security: [{ bearer: [] }] },
        response: { 204: t.Void({ description: "Logged out" }), ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES) },
      },
    );
}

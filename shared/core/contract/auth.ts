/* Accounts and sign-in in the contract: signup, login, mail tokens, and who is calling (`/me`). */
import { Type, type Static } from "@sinclair/typebox";
import { EMAIL_MAX, EMAIL_PATTERN, PASSWORD_MAX, PASSWORD_MIN } from "../accounts/rules";
import type { Principal } from "../auth/credentials";
import { strictObject, Text, Timestamp, Uuid } from "./schema-kit";

export const Email = Text({ minLength: 3, maxLength: EMAIL_MAX, pattern: EMAIL_PATTERN });
export const Password = Text({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX });

export const SignupBody = strictObject({ email: Email, password: Password });
export const LoginBody = strictObject({ email: Email, password: Text({ minLength: 1, maxLength: 256 }) });
export const Identity = strictObject({ id: Uuid, email: Type.String() });
export const LoginResponse = strictObject({ token: Type.String(), expiresAt: Timestamp });

const MailToken = Text({ minLength: 1, maxLength: 128 });
export const VerifyEmailBody = strictObject({ token: MailToken });
export const ForgotPasswordBody = strictObject({ email: Email });
export const ResetPasswordBody = strictObject({ token: MailToken, password: Password });
export const Accepted = strictObject({ accepted: Type.Literal(true) });

/** Who is calling, from the authenticated credential alone (no Postgres). */
export function identityView(principal: Principal): Static<typeof Identity> {
  return { id: principal.userId, email: principal.email };
}

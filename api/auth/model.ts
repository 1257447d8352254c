import { t } from "elysia";
import { strictObject, Text, Timestamp, Uuid } from "../../shared/contract/schema-kit";
import { EMAIL_MAX, EMAIL_PATTERN, PASSWORD_MAX, PASSWORD_MIN } from "../../shared/accounts/rules";

export const Email = Text({ minLength: 3, maxLength: EMAIL_MAX, pattern: EMAIL_PATTERN });
export const Password = Text({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX });

export const SignupBody = strictObject({ email: Email, password: Password });
export const LoginBody = strictObject({ email: Email, password: Text({ minLength: 1, maxLength: 256 }) });
export const Identity = strictObject({ id: Uuid, email: t.String() });
export const LoginResponse = strictObject({ token: t.String(), expiresAt: Timestamp });

const MailToken = Text({ minLength: 1, maxLength: 128 });
export const VerifyEmailBody = strictObject({ token: MailToken });
export const ForgotPasswordBody = strictObject({ email: Email });
export const ResetPasswordBody = strictObject({ token: MailToken, password: Password });
export const Accepted = strictObject({ accepted: t.Literal(true) });

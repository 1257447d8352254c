import { t } from "elysia";
import { strictObject, Timestamp, Uuid } from "../schemas";

export const Email = t.String({ minLength: 3, maxLength: 254, pattern: "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$" });
export const Password = t.String({ minLength: 8, maxLength: 256 });

export const SignupBody = strictObject({ email: Email, password: Password });
export const LoginBody = strictObject({ email: Email, password: t.String({ minLength: 1, maxLength: 256 }) });
export const Identity = strictObject({ id: Uuid, email: t.String() });
export const LoginResponse = strictObject({ token: t.String(), expiresAt: Timestamp });

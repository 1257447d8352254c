import { hasLengthWithin } from "@amem/platform";

/**
 * Input rules shared by the HTTP schemas and the admin CLI, so both accept exactly the same.
 * Lengths count characters (code points), as the published JSON Schema does.
 */
export const EMAIL_PATTERN = "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$";
export const EMAIL_MAX = 254;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
export const KEY_NAME_MAX = 64;

export function isEmail(value: string): boolean {
  return hasLengthWithin(value, 3, EMAIL_MAX) && new RegExp(EMAIL_PATTERN).test(value);
}
export function isPassword(value: string): boolean {
  return hasLengthWithin(value, PASSWORD_MIN, PASSWORD_MAX);
}
export function isKeyName(value: string): boolean {
  return hasLengthWithin(value, 1, KEY_NAME_MAX);
}

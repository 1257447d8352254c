import { hasLengthWithin } from "@amem/platform";

/**
 * Input rules shared by the HTTP schemas and the admin CLI, so both accept exactly the same.
 * Lengths count characters (code points), as the published JSON Schema does.
 */
/**
 * An address, and none under the reserved `.invalid` top-level domain (RFC 2606: never a mailbox):
 * an erased account's email becomes `deleted-<id>@deleted.invalid` (SPEC §8), and an account that
 * signed up with that address first made the erasure's rename fail on the unique email, every retry,
 * forever (a probe's find: anyone who knew a user's id could block that user's erasure). Written
 * without flags, as JSON Schema patterns are, so the published schema refuses it too.
 */
export const EMAIL_PATTERN = "^(?![^@]*@(?:[^@]*\\.)?[iI][nN][vV][aA][lL][iI][dD]\\.?$)[^\\s@]+@[^\\s@]+\\.[^\\s@]+$";
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

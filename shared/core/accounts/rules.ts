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
  return hasLengthWithin(value, 3, EMAIL_MAX) && new RegExp(EMAIL_PATTERN).test(value) && !isReservedEmail(value);
}

/**
 * An address under `.invalid` as the unique index compares emails (`lower(email)` in Postgres),
 * whatever its letters: decomposed, marks dropped and lower-cased, `deleted.İnvalid` (U+0130, which
 * Postgres lowers to a plain i) and fullwidth letters read as `.invalid`. The pattern checks ASCII
 * only (JSON Schema has no flags); a review signed up `deleted-<id>@deleted.İnvalid` past it and the
 * erasure failed on the unique email again. Account creation checks this too.
 */
export function isReservedEmail(value: string): boolean {
  const folded = value.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  return /@(?:[^@]*\.)?invalid\.?$/.test(folded);
}
export function isPassword(value: string): boolean {
  return hasLengthWithin(value, PASSWORD_MIN, PASSWORD_MAX);
}
export function isKeyName(value: string): boolean {
  return hasLengthWithin(value, 1, KEY_NAME_MAX);
}

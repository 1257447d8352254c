/**
 * Text rules shared by the HTTP schemas, the body reader and the admin CLI.
 *
 * Lengths count characters (Unicode code points), as JSON Schema's minLength/maxLength do, not
 * UTF-16 units (`String.length`): a 64-emoji name is 64 characters, valid under the published
 * `maxLength: 64`, though its `.length` is 128.
 */
export function codePointLength(value: string): number {
  let pairs = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return value.length - pairs;
}

/** Whether the text has between `min` and `max` characters (code points); cheap when `.length` decides. */
export function hasLengthWithin(value: string, min: number, max: number): boolean {
  // Code points ≤ UTF-16 units ≤ 2 × code points.
  if (value.length < min || value.length > 2 * max) return false;
  if (value.length <= max && value.length >= 2 * min) return true;
  const length = codePointLength(value);
  return length >= min && length <= max;
}

/**
 * Whether Postgres text can store the string as sent: no NUL, and no unpaired UTF-16 surrogate
 * (which UTF-8 cannot encode; the driver would store U+FFFD while the answer echoes the original).
 */
export function isStorableText(value: string): boolean {
  return value.isWellFormed() && !value.includes("\u0000");
}

/**
 * Whether any string (or property name) in a parsed JSON value is one Postgres text cannot store
 * as sent: what the api's body reader and the MCP server's tools, prompts and completions refuse
 * as `invalid_input` before anything reaches the database.
 */
export function hasUnstorableText(value: unknown): boolean {
  if (typeof value === "string") return !isStorableText(value);
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key) || hasUnstorableText(item)) return true;
    }
  }
  return false;
}

/**
 * What a name a person reads (an OAuth client's on the consent page, an API key's in the console)
 * may not hold: control characters and line or paragraph separators (a line break splits the name
 * from "wants access"), and format characters (\p{Cf}) — the bidirectional embeddings, overrides,
 * isolates and marks, which reorder what is displayed (a probe registered "Evil\u202Eppa" and the
 * consent page showed "Evilapp"), and the invisible ones (zero-width space, word joiner, soft
 * hyphen, tags), which make "lap\u200Btop" show as "laptop". Right-to-left names need none of them.
 * A zero-width joiner is kept after an emoji, where it joins a sequence (👩‍💻).
 */
const MISLEADING_NAME_CHARACTERS = /[\p{Cc}\p{Zl}\p{Zp}]|(?!\u200d)\p{Cf}|(?<!\p{Extended_Pictographic}\ufe0f?)\u200d/u;
/** Letters that render as blank space: the Hangul fillers and the braille blank. */
const BLANK_LETTERS = /[\u115f\u1160\u3164\uffa0\u2800]/gu;
/** Something that shows: a letter, digit, punctuation or symbol that is not a blank one. */
const VISIBLE_CHARACTER = /[\p{L}\p{N}\p{P}\p{S}]/u;

/**
 * Whether a name shows as what it is: something visible, stored as sent, nothing invisible or
 * reordering in it. (Letters of other scripts that look alike — Cyrillic "а" — remain possible.)
 */
export function isDisplayName(value: string): boolean {
  return (
    VISIBLE_CHARACTER.test(value.replace(BLANK_LETTERS, "")) &&
    isStorableText(value) &&
    !MISLEADING_NAME_CHARACTERS.test(value)
  );
}

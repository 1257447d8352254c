/** Timestamps out: ISO 8601 UTC, millisecond precision, trailing Z (SPEC §1). */
export function iso(value: Date | number): string {
  return new Date(value).toISOString();
}
export function isoOrNull(value: Date | number | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}

const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/;

/**
 * Timestamps in (SPEC §1): ISO 8601 with `Z`, optional fraction, and a real calendar date and time
 * (`2026-02-30T00:00:00Z` and `…T24:00:00Z` are not), from year 0001.
 */
export function isUtcTimestamp(value: string): boolean {
  const m = UTC_TIMESTAMP.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999. Year 0 does not exist
  // in Postgres (1 BC is 0001 BC there), so it is refused here rather than by the database.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  return (
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

/** Timestamps out: ISO 8601 UTC, millisecond precision, trailing Z (SPEC §1). */
export function iso(value: Date | number): string {
  return new Date(value).toISOString();
}
export function isoOrNull(value: Date | number | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}

/**
 * What of an error may reach a log line. Query errors carry the SQL parameters (drizzle's
 * "Failed query: … params: …" message) and driver messages can quote input values, so for those
 * only names and codes are kept; other errors (bugs) keep message and stack. The cause chain is
 * walked so a wrapped driver error is described too.
 */
export function loggableError(error: unknown): Record<string, unknown> {
  const chain: Record<string, unknown>[] = [];
  let current = error as Record<string, unknown> | undefined;
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const name = String(current.name ?? current.constructor?.name ?? "Error");
    const fromDatabase =
      name === "DrizzleQueryError" || name === "PostgresError" || "query" in current || "severity" in current;
    const entry: Record<string, unknown> = { name };
    for (const field of ["code", "errno", "constraint_name", "table_name", "routine"]) {
      if (current[field] !== undefined) entry[field] = current[field];
    }
    if (!fromDatabase) {
      entry.message = current.message;
      if (depth === 0) entry.stack = current.stack;
    }
    chain.push(entry);
    current = current.cause as Record<string, unknown> | undefined;
  }
  return chain.length === 1 ? chain[0]! : { ...chain[0], causes: chain.slice(1) };
}

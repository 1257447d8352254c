import { Kind, type TSchema } from "@sinclair/typebox";
import { UUID_PATTERN } from "@amem/platform";
import { EMAIL_PATTERN } from "@amem/core";

/** A route as Elysia's route table lists it, with the schemas its hooks validate. */
export type TableRoute = {
  method: string;
  path: string;
  hooks: { body?: TSchema; query?: TSchema; params?: TSchema; detail?: { security?: unknown[]; hide?: boolean } };
};

/** Strings for the patterns the contract uses; anything else falls back to letters of the right length. */
const PATTERN_EXAMPLES: Record<string, () => string> = {
  [UUID_PATTERN]: () => crypto.randomUUID(),
  "^[a-z0-9][a-z0-9-]*$": () => "probe",
  [EMAIL_PATTERN]: () => `${crypto.randomUUID()}@example.test`,
};

/**
 * The smallest value a TypeBox schema accepts: required properties only, the first variant of a
 * union that can be built, bounds at their minimum. Used to reach what a route does *after*
 * validation (authentication, the handler) from nothing but the route table.
 */
export function exampleOf(schema: TSchema): unknown {
  const s = schema as TSchema & Record<string, any>;
  switch (s[Kind]) {
    case "Undefined":
      return undefined;
    case "Null":
      return null;
    case "Literal":
      return s.const;
    case "Boolean":
      return false;
    case "Integer":
    case "Number":
    case "QueryInteger":
      return s.minimum ?? 1;
    case "String":
    case "Text": {
      if (s.format === "utc-timestamp") return new Date().toISOString();
      const fromPattern = s.pattern === undefined ? undefined : PATTERN_EXAMPLES[s.pattern];
      if (s.pattern !== undefined && !fromPattern) throw new Error(`no example for pattern ${s.pattern}`);
      return fromPattern ? fromPattern() : "x".repeat(Math.max(1, s.minLength ?? 1));
    }
    case "Array":
      return Array.from({ length: s.minItems ?? 0 }, () => exampleOf(s.items));
    case "Union":
    case "UnionEnum":
      return s.anyOf ? exampleOf(s.anyOf[0]) : s.enum[0];
    case "Object": {
      const required: string[] = [...(s.required ?? [])];
      // minProperties (e.g. a PATCH body) is met with the first optional properties.
      for (const key of Object.keys(s.properties)) {
        if (required.length >= (s.minProperties ?? 0)) break;
        if (!required.includes(key)) required.push(key);
      }
      return Object.fromEntries(required.map((key) => [key, exampleOf(s.properties[key])]));
    }
    default:
      throw new Error(`no example for schema kind ${String(s[Kind])}`);
  }
}

/** A request the route's schemas accept: params filled into the path, query and body at their minimum. */
export function validRequestFor(route: TableRoute): { path: string; body: unknown } {
  const params = (route.hooks.params ? exampleOf(route.hooks.params) : {}) as Record<string, string>;
  const path = route.path.replace(/:([^/]+)/g, (_, name: string) => encodeURIComponent(params[name]!));
  const query = (route.hooks.query ? exampleOf(route.hooks.query) : {}) as Record<string, unknown>;
  const search = new URLSearchParams(
    Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  return {
    path: search ? `${path}?${search}` : path,
    body: route.hooks.body ? exampleOf(route.hooks.body) : undefined,
  };
}

/*
 * The schema builders of the REST and MCP contract (TypeBox only: shared/ never imports Elysia,
 * whose `t` is TypeBox's `Type` plus a few kinds of its own). Importing this module registers the
 * custom kinds ("Text", "QueryInteger", "UnionEnum") and the "utc-timestamp" format.
 */
import {
  FormatRegistry,
  Kind,
  Type,
  TypeRegistry,
  type IntegerOptions,
  type ObjectOptions,
  type SchemaOptions,
  type StringOptions,
  type TInteger,
  type TLiteral,
  type TProperties,
  type TSchema,
  type TUnion,
  type TUnsafe,
} from "@sinclair/typebox";
import {
  UUID_PATTERN,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  hasLengthWithin,
  isDisplayName,
  isUtcTimestamp,
} from "@amem/platform";

/** Every object schema rejects unknown properties (SPEC §1: nothing is silently stripped). */
export function strictObject<P extends TProperties>(properties: P, options: ObjectOptions = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

const patterns = new Map<string, RegExp>();
function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (!pattern) patterns.set(source, (pattern = new RegExp(source)));
  return pattern;
}

TypeRegistry.Set<StringOptions>(
  "Text",
  (schema, value) =>
    typeof value === "string" &&
    hasLengthWithin(value, schema.minLength ?? 0, schema.maxLength ?? Number.POSITIVE_INFINITY) &&
    (schema.pattern === undefined || patternOf(schema.pattern).test(value)) &&
    (schema.format === undefined || FormatRegistry.Get(schema.format)?.(value) === true),
);

/**
 * A string whose minLength/maxLength count characters (code points), as JSON Schema and so the
 * published OpenAPI document do — TypeBox's own string counts UTF-16 units, refusing a 64-emoji
 * name the document allows. Published exactly as the plain string schema (`type: "string"` with
 * the same keywords); pattern and format are checked as TypeBox would. Every request string with
 * a length bound uses it (test/api/http-edges.test.ts walks the route table for strays).
 */
export function Text(options: StringOptions = {}) {
  return Type.Unsafe<string>({ ...options, type: "string", [Kind]: "Text" });
}

TypeRegistry.Set<{ minimum: number; maximum: number }>(
  "QueryInteger",
  (schema, value) =>
    typeof value === "string" &&
    /^[0-9]{1,16}$/.test(value) &&
    Number(value) >= schema.minimum &&
    Number(value) <= schema.maximum,
);

/**
 * An integer query parameter: decimal digits only (no sign, exponent, hex, fraction or spaces,
 * which Elysia's `t.Numeric` lets through: `1e1`, `0x10`), within its bounds, handed to the
 * handler as a number; published as `{type: "integer", minimum, maximum}`. Typed as the integer the
 * handler receives: Elysia infers a route's types from a schema's encoded side (as its own
 * `t.Numeric` is typed TNumber for the same reason).
 */
export function QueryInteger(bounds: { minimum: number; maximum: number }): TInteger {
  return Type.Transform(Type.Unsafe<string>({ ...bounds, type: "integer", [Kind]: "QueryInteger" }))
    .Decode((digits) => Number(digits))
    .Encode((value) => String(value)) as unknown as TInteger;
}

/** UUID versions 1–8, plus nil and max, any case (SPEC §1); handlers lower-case them. */
export const Uuid = Type.String({ pattern: UUID_PATTERN });
export const Timestamp = Type.String({ description: "ISO 8601 UTC with Z, millisecond precision" });
FormatRegistry.Set("utc-timestamp", isUtcTimestamp);
/** A name people read (isDisplayName): not blank, no control or bidirectional formatting characters. */
FormatRegistry.Set("display-name", isDisplayName);
/** A timestamp sent by the client: ISO 8601 with Z and a real calendar date. */
export const TimestampIn = Text({ format: "utc-timestamp", maxLength: 40 });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Agent = Text({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" });
export const ScopeName = Text({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" });
export const SessionId = Text({ minLength: 1, maxLength: 256 });
export const Project = Text({ minLength: 1, maxLength: 256 });
/** An opaque list cursor as the client sends it back. */
export const Cursor = Text({ minLength: 1, maxLength: 200 });
/**
 * A JSON integer. TypeBox's own, not Elysia's `t.Integer`, which also accepts numeric strings and
 * sends every response containing it through a slower conversion path.
 */
export const Int = (options: IntegerOptions = {}) => Type.Integer(options);

/**
 * One of the given strings. Not Elysia's `t.UnionEnum`, which gives the schema a default (its first
 * value) that an optional query field then silently takes.
 */
export function oneOf<const V extends readonly string[]>(
  values: V,
  options: SchemaOptions = {},
): TUnion<TLiteral<V[number]>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<TLiteral<V[number]>[]>;
}

// Elysia registers this same check under this kind unless it is registered already: whichever
// module loads first, the check is the same.
if (!TypeRegistry.Has("UnionEnum"))
  TypeRegistry.Set<{ enum: unknown[] }>(
    "UnionEnum",
    (schema, value) =>
      (typeof value === "number" || typeof value === "string" || value === null) && schema.enum.includes(value),
  );

/**
 * One of the given strings, for responses only. The very schema Elysia's `t.UnionEnum` builds (same
 * kind, same keywords in the same order, so the published document is unchanged), made here
 * because shared/ does not import Elysia. Its `default` (the first value) is never applied to a
 * response; request fields use `oneOf`.
 */
export function UnionEnum<const V extends readonly string[]>(values: V): TUnsafe<V[number]> {
  return { default: values[0], [Kind]: "UnionEnum", type: "string", enum: values } as unknown as TUnsafe<V[number]>;
}

/** For routes that take no query parameters: any parameter is an unknown one (400). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * For write routes that take no input: no body, or an empty object (what some client libraries
 * send); anything else is refused (400), not ignored (SPEC §1). A union, since `Type.Optional` of
 * an object lets `[]`, `1` or `null` through unchecked.
 */
export const NoBody = Type.Union([Type.Undefined(), strictObject({})]);

/** `{"error": code}` for the given codes (the UnionEnum kind without its `default`: a default error code would be a false statement). */
function errorBody(codes: readonly ErrorCode[]): TSchema {
  return strictObject(
    { error: Type.Unsafe<ErrorCode>({ [Kind]: "UnionEnum", type: "string", enum: codes }) },
    { description: 'Every error: exactly {"error": code}' },
  );
}

/**
 * The error responses of a route, declared by the codes it can answer: each status (from
 * ERROR_STATUS) lists its codes, in the vocabulary's order, so the OpenAPI document and the client
 * generated from it say which `{"error": code}` each route gives.
 */
export function errors(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODES.filter((c) => codes.includes(c))) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].map(([status, listed]) => [status, errorBody(listed)]));
}
/** What any authenticated route can answer: a bad query or path, no credential, the rate limit, a fault, a store away. */
export const AUTHED_CODES = [
  "invalid_input",
  "unauthorized",
  "rate_limited",
  "internal_error",
  "unavailable",
] as const satisfies readonly ErrorCode[];
/**
 * What an authenticated state-changing route (any method but GET/HEAD/OPTIONS) can answer besides:
 * `forbidden`, a console session cookie without its CSRF token (shared/core/auth/console-session.ts).
 */
export const AUTHED_WRITE_CODES = [...AUTHED_CODES, "forbidden"] as const satisfies readonly ErrorCode[];
/** What any route that reads a JSON body can answer besides (shared/http/json-body.ts). */
export const BODY_CODES = [
  "invalid_json",
  "payload_too_large",
  "unsupported_media_type",
] as const satisfies readonly ErrorCode[];

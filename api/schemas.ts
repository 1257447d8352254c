import { t, type TSchema } from "elysia";
import {
  Type,
  type IntegerOptions,
  type ObjectOptions,
  type TLiteral,
  type TProperties,
  type TUnion,
} from "@sinclair/typebox";
import { UUID_PATTERN } from "../shared/accounts/rules";
import { isUtcTimestamp } from "../shared/time";
import { FormatRegistry } from "@sinclair/typebox";

/** Every object schema rejects unknown properties (SPEC §1: nothing is silently stripped). */
export function strictObject<P extends TProperties>(properties: P, options: ObjectOptions = {}) {
  return t.Object(properties, { additionalProperties: false, ...options });
}

/** UUID versions 1–8, plus nil and max, any case (SPEC §1); handlers lower-case them. */
export const Uuid = t.String({ pattern: UUID_PATTERN });
export const Timestamp = t.String({ description: "ISO 8601 UTC with Z, millisecond precision" });
FormatRegistry.Set("utc-timestamp", isUtcTimestamp);
/** A timestamp sent by the client: ISO 8601 with Z and a real calendar date. */
export const TimestampIn = t.String({ format: "utc-timestamp", maxLength: 40 });
export const NullableTimestamp = t.Union([Timestamp, t.Null()]);
export const Agent = t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" });
export const ScopeName = t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" });
export const SessionId = t.String({ minLength: 1, maxLength: 256 });
export const Project = t.String({ minLength: 1, maxLength: 256 });
/**
 * A JSON integer. TypeBox's own, not Elysia's `t.Integer`, which also accepts numeric strings and
 * sends every response containing it through a slower conversion path.
 */
export const Int = (options: IntegerOptions = {}) => Type.Integer(options);

/**
 * One of the given strings. Not Elysia's `t.UnionEnum`, which gives the schema a default (its first
 * value) that an optional query field then silently takes.
 */
export function oneOf<const V extends readonly string[]>(values: V): TUnion<TLiteral<V[number]>[]> {
  return t.Union(values.map((v) => t.Literal(v))) as unknown as TUnion<TLiteral<V[number]>[]>;
}

/** For routes that take no query parameters: any parameter is an unknown one (400). */
export const NoQuery = t.Object({}, { additionalProperties: false });

export const ErrorBody = strictObject({ error: t.String() }, { description: 'Every error: exactly {"error": code}' });

/** The error responses a route can give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}
/** Errors any authenticated route can give. */
export const AUTHED_ERRORS = [400, 401, 429, 500, 503] as const;

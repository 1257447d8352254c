/* Scopes in the REST and MCP contract (seed 4.6 list; SPEC §5 management). */
import { Type, type Static } from "@sinclair/typebox";
import type { ScopeRow } from "@amem/store";
import { iso } from "@amem/platform";
import { Int, ScopeName, strictObject, Timestamp, Uuid } from "./schema-kit";

const Aliases = Type.Array(ScopeName, { maxItems: 16 });
export const Scope = strictObject({
  id: Uuid,
  name: Type.String(),
  aliases: Type.Array(Type.String()),
  createdAt: Timestamp,
});
export const ScopeList = strictObject({ count: Int(), scopes: Type.Array(Scope) });
export const CreateScopeBody = strictObject({ name: ScopeName, aliases: Type.Optional(Aliases) });
export const UpdateScopeBody = strictObject(
  { name: Type.Optional(ScopeName), aliases: Type.Optional(Aliases) },
  { minProperties: 1 },
);
export const ScopeIdParams = strictObject({ id: Uuid });

export function scopeView(s: ScopeRow): Static<typeof Scope> {
  return { id: s.id, name: s.name, aliases: s.aliases, createdAt: iso(s.createdAt) };
}

export function scopeListView(rows: ScopeRow[]): Static<typeof ScopeList> {
  return { count: rows.length, scopes: rows.map(scopeView) };
}

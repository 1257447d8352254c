import { Type } from "@sinclair/typebox";
import {
  Scope,
  ScopeList,
  scopeListView,
  scopeView,
  Int,
  oneOf,
  ScopeName,
  strictObject,
  type Deps,
  type Principal,
  createScope,
  deleteScope,
  listScopesOf,
  updateScope,
} from "@amem/core";
import { AppError } from "@amem/platform";
import { defineTool } from "./tool";

const ACTIONS = ["list", "create", "rename", "set_aliases", "delete"] as const;

const ConfigureScopeInput = strictObject({
  action: oneOf(ACTIONS),
  /** The scope acted on, by name or alias (rename, set_aliases, delete). */
  scope: Type.Optional(ScopeName),
  /** create: the new scope's name; rename: the new name. */
  name: Type.Optional(ScopeName),
  aliases: Type.Optional(Type.Array(ScopeName, { maxItems: 16 })),
});
const ConfigureScopeOutput = strictObject({
  action: oneOf(ACTIONS),
  /** The scope created or changed (absent for list and delete). */
  scope: Type.Optional(Scope),
  count: Int(),
  scopes: ScopeList.properties.scopes,
});

/** The registered scope a name or alias designates: not_found when none. */
async function scopeIdOf(deps: Deps, principal: Principal, nameOrAlias: string | undefined): Promise<string> {
  if (nameOrAlias === undefined) throw new AppError("invalid_input");
  const scope = (await listScopesOf(deps, principal)).find(
    (s) => s.name === nameOrAlias || s.aliases.includes(nameOrAlias),
  );
  if (!scope) throw new AppError("not_found");
  return scope.id;
}

/** The action's fields and no others (as seed §2.3 treats a briefing selector's fields). */
function assertFields(input: Record<string, unknown>, allowed: readonly string[], required: readonly string[]): void {
  for (const key of Object.keys(input))
    if (key !== "action" && !allowed.includes(key)) throw new AppError("invalid_input");
  for (const key of required) if (input[key] === undefined) throw new AppError("invalid_input");
}

/** GET/POST /api/v1/scopes and PATCH/DELETE /api/v1/scopes/{id} through MCP, one tool with an action. */
export const configureScopeTool = (deps: Deps) =>
  defineTool({
    name: "configure_scope",
    title: "Configure scopes",
    description:
      "List and manage the scopes memories are filed under (e.g. personal, work, a client). action list: the scopes with their aliases. create: name (+ optional aliases). rename: scope (its current name or an alias) and name (the new name; the scope's memories follow). set_aliases: scope and aliases (replaces the list; [] clears it). delete: scope (the registration goes; memories keep their scope text). Every answer includes the scope list after the action. Errors: conflict when a name or alias is taken, not_found for an unknown scope, invalid_input for a field the action does not take.",
    input: ConfigureScopeInput,
    output: ConfigureScopeOutput,
    scope: (args) => (args.action === "list" ? "memory:read" : "memory:write"),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: async (principal, input) => {
      // By the name or alias it was found by, which the service checks again under its lock.
      const change = async (scope: string | undefined, fields: { name?: string; aliases?: string[] }) =>
        updateScope(deps, principal, await scopeIdOf(deps, principal, scope), fields, scope);
      let changed: Parameters<typeof scopeView>[0] | undefined;
      switch (input.action) {
        case "list":
          assertFields(input, [], []);
          break;
        case "create":
          assertFields(input, ["name", "aliases"], ["name"]);
          changed = await createScope(deps, principal, { name: input.name!, aliases: input.aliases });
          break;
        case "rename":
          assertFields(input, ["scope", "name"], ["scope", "name"]);
          changed = await change(input.scope, { name: input.name });
          break;
        case "set_aliases":
          assertFields(input, ["scope", "aliases"], ["scope", "aliases"]);
          changed = await change(input.scope, { aliases: input.aliases });
          break;
        case "delete":
          assertFields(input, ["scope"], ["scope"]);
          await deleteScope(deps, principal, await scopeIdOf(deps, principal, input.scope), input.scope);
          break;
      }
      const list = scopeListView(await listScopesOf(deps, principal));
      return { action: input.action, ...(changed ? { scope: scopeView(changed) } : {}), ...list };
    },
  });

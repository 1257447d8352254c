import { AppError, newId } from "@amem/platform";
import type { Deps } from "../deps";
import {
  type Executor,
  type TransactionExecutor,
  deleteScopeRow,
  findScopeByNameOrAlias,
  findScopeForWrite,
  insertScope,
  listScopes,
  lockScopeForRename,
  lockTenantScopes,
  scopeNamesTaken,
  updateScopeRow,
  type ScopeRow,
  renameMemoryScope,
} from "@amem/store";
import type { Principal } from "../auth/credentials";
import { tenantWrite } from "../accounts/write-fence";

/** The scope name a read means: an alias resolves to its scope's name; anything else is taken as is. */
export async function resolveScopeName(db: Executor, userId: string, nameOrAlias: string): Promise<string> {
  return (await findScopeByNameOrAlias(db, userId, nameOrAlias))?.name ?? nameOrAlias;
}

/**
 * The scope a write lands in (inside the write's transaction): an alias resolves to its scope; an
 * unregistered name is registered (SPEC §5). Only that rare registration takes the tenant's scope lock.
 * The scope found stays locked FOR KEY SHARE until the write commits, so a concurrent rename
 * either waits and moves the write's memory too, or went first and the name is registered anew.
 */
export async function scopeForWrite(
  tx: TransactionExecutor,
  userId: string,
  nameOrAlias: string,
  now: Date,
): Promise<string> {
  const known = await findScopeForWrite(tx, userId, nameOrAlias);
  if (known) return known;
  await lockTenantScopes(tx, userId);
  const raced = await findScopeForWrite(tx, userId, nameOrAlias);
  if (raced) return raced;
  await insertScope(tx, { id: newId(), userId, name: nameOrAlias, aliases: [], now });
  return nameOrAlias;
}

/** GET /scopes: the tenant's registered scopes with their aliases. */
export async function listScopesOf(deps: Deps, principal: Principal): Promise<ScopeRow[]> {
  return listScopes(deps.db, principal.userId);
}

function checkAliases(name: string, aliases: string[]): void {
  if (new Set(aliases).size !== aliases.length || aliases.includes(name)) throw new AppError("invalid_input");
}

/** POST /scopes: 409 conflict when the name or an alias is already a name or alias of the tenant. */
export async function createScope(
  deps: Deps,
  principal: Principal,
  input: { name: string; aliases?: string[] },
  now = new Date(),
): Promise<ScopeRow> {
  const aliases = input.aliases ?? [];
  checkAliases(input.name, aliases);
  return tenantWrite(deps, principal, async (tx) => {
    await lockTenantScopes(tx, principal.userId);
    if (await scopeNamesTaken(tx, principal.userId, [input.name, ...aliases])) throw new AppError("conflict");
    return insertScope(tx, { id: newId(), userId: principal.userId, name: input.name, aliases, now });
  });
}

/** PATCH /scopes/{id}: rename (the tenant's memories follow) and/or replace the aliases. */
export async function updateScope(
  deps: Deps,
  principal: Principal,
  id: string,
  input: { name?: string; aliases?: string[] },
  designation?: string,
): Promise<ScopeRow> {
  return tenantWrite(deps, principal, async (tx) => {
    await lockTenantScopes(tx, principal.userId);
    const scope = await lockScopeForRename(tx, principal.userId, id);
    if (!scope || !designates(scope, designation)) throw new AppError("not_found");
    const name = input.name ?? scope.name;
    const aliases = input.aliases ?? scope.aliases;
    checkAliases(name, aliases);
    if (await scopeNamesTaken(tx, principal.userId, [name, ...aliases], scope.id)) throw new AppError("conflict");
    if (name !== scope.name) await renameMemoryScope(tx, principal.userId, scope.name, name);
    return updateScopeRow(tx, scope.id, { name, aliases });
  });
}

/** DELETE /scopes/{id}: the registration goes; memories keep their scope text. */
export async function deleteScope(deps: Deps, principal: Principal, id: string, designation?: string): Promise<void> {
  await tenantWrite(deps, principal, async (tx) => {
    await lockTenantScopes(tx, principal.userId);
    if (designation !== undefined) {
      const scope = await lockScopeForRename(tx, principal.userId, id);
      if (!scope || !designates(scope, designation)) throw new AppError("not_found");
    }
    if (!(await deleteScopeRow(tx, principal.userId, id))) throw new AppError("not_found");
  });
}

/**
 * Whether the scope still goes by the name or alias a caller found it by (the MCP tool acts by
 * name), read under the tenant's scope lock: of 20 concurrent renames of one name, each found the
 * scope first and each answered success with its own new name, though only one name was left.
 */
function designates(scope: { name: string; aliases: string[] }, designation: string | undefined): boolean {
  return designation === undefined || scope.name === designation || scope.aliases.includes(designation);
}

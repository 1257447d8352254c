import type { Selector } from "@amem/store";

/** Selector as sent (with optional includeUnscoped); normalised before it is stored or compared. */
export type SelectorInput =
  | { kind: "all" }
  | { kind: "scope"; scope: string }
  | { kind: "project"; project: string }
  | { kind: "scope_project"; scope: string; project: string; includeUnscoped?: boolean };

/** Omitted → `{kind:"all"}`; `includeUnscoped` defaults to false, so equal selectors compare equal. */
export function normalizeSelector(selector: SelectorInput | undefined): Selector {
  if (!selector) return { kind: "all" };
  switch (selector.kind) {
    case "all":
      return { kind: "all" };
    case "scope":
      return { kind: "scope", scope: selector.scope };
    case "project":
      return { kind: "project", project: selector.project };
    case "scope_project":
      return {
        kind: "scope_project",
        scope: selector.scope,
        project: selector.project,
        includeUnscoped: selector.includeUnscoped ?? false,
      };
  }
}

export * from "./users";
export * from "./api-keys";
export * from "./user-sessions";
export * from "./mail-tokens";
export * from "./scopes";
export * from "./agent-sessions";
export * from "./memories";
export * from "./commitments";

import { randomBytes } from "node:crypto";
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";

/**
 * The SDK v2 client's OAuthClientProvider as a headless test needs it (research §3.1): everything
 * in memory, client information keyed by the authorization server's issuer, every token set kept
 * in order (a refresh shows as a new entry), the authorization URL stashed for the test's browser
 * leg instead of opening a browser. The SDK does not check `state`: the test compares the callback's
 * against `lastState`.
 */
export class HeadlessOAuthProvider implements OAuthClientProvider {
  /** Nothing listens here: the browser leg reads the authorization server's redirect itself. */
  readonly redirectUrl = "http://127.0.0.1:8765/callback";
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "amem e2e client",
    redirect_uris: [this.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    application_type: "native",
  };
  private readonly clients = new Map<string, StoredOAuthClientInformation>();
  /** Every token set the SDK saved, oldest first. */
  readonly saved: StoredOAuthTokens[] = [];
  /** The authorization URLs the SDK asked the user to open, oldest first. */
  readonly authorizationUrls: URL[] = [];
  lastState: string | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  state(): string {
    this.lastState = randomBytes(16).toString("hex");
    return this.lastState;
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    return ctx ? this.clients.get(ctx.issuer) : [...this.clients.values()].at(-1);
  }

  saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): void {
    this.clients.set(ctx?.issuer ?? "", info);
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.saved.at(-1);
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved.push(tokens);
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no code verifier saved");
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /** What the SDK asked to forget, in order (a refused refresh drops the tokens). */
  readonly invalidated: string[] = [];

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    this.invalidated.push(scope);
    if (scope === "all" || scope === "tokens") this.saved.length = 0;
    if (scope === "all" || scope === "client") this.clients.clear();
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  /** The URL the user was last sent to. */
  get pendingUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error("the client never asked for authorization");
    return url;
  }
}

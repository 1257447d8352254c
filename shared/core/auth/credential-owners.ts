/** How many credential owners a process remembers; beyond it the oldest are forgotten. */
const CAPACITY = 50_000;

/**
 * Credential hash → owning user id, remembered by this process after a successful authentication.
 * A credential never changes owner, so an entry can never be wrong, only missing; it lets the
 * heartbeat name the tenant's lease key before Redis has answered (one round trip instead of two).
 * It says nothing about validity: every request is still checked against the credential cache.
 */
export class CredentialOwners {
  private readonly owners = new Map<string, string>();

  get(hash: string): string | undefined {
    return this.owners.get(hash);
  }

  remember(hash: string, userId: string): void {
    if (this.owners.has(hash)) return;
    if (this.owners.size >= CAPACITY) this.owners.delete(this.owners.keys().next().value!);
    this.owners.set(hash, userId);
  }
}

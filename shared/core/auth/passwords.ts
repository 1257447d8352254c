/** argon2id via Bun.password; a fixed dummy hash keeps failed logins as slow as successful ones. */
const OPTIONS = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;
let dummyHash: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, OPTIONS);
}

/** Verifies against the stored hash, or against a dummy one when there is none (equal timing). */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  dummyHash ??= Bun.password.hash("amem-dummy-password", OPTIONS);
  const target = hash ?? (await dummyHash);
  const ok = await Bun.password.verify(password, target);
  return ok && hash !== null && hash !== undefined;
}

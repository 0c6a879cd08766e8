type Argon2 = typeof import('@node-rs/argon2');

let argon2: Promise<Argon2> | undefined;

/** Loaded at the first hash or check, not at start: /health and a server nobody has logged in to need none. */
function loadArgon2(): Promise<Argon2> {
  argon2 ??= import('@node-rs/argon2').catch((err: unknown) => {
    argon2 = undefined;
    throw err;
  });
  return argon2;
}

// argon2id with OWASP's second recommended profile: 19 MiB, 2 passes.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 8;

export async function hashPassword(password: string): Promise<string> {
  const { hash } = await loadArgon2();
  return hash(password, OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies against the stored hash, or against a throwaway hash when the user does not exist, so the response
 * time does not tell whether an account exists.
 */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  const { hash, verify } = await loadArgon2();
  if (!storedHash) {
    dummyHash ??= hash('colophon-timing-equaliser', OPTIONS);
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}

/**
 * Per-route settings read by the generic hooks. `permission` is typed as a string here because http/
 * knows no feature; identity/auth narrows and checks it.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission a caller needs (kebab-case), or several of which it needs any one; checked after authentication. */
    permission?: string | readonly string[];
    /** Reachable without credentials (health, login, setup). */
    public?: boolean;
    /** `false` exempts the route from rate limiting (health, event streams). */
    rateLimit?: boolean;
    /**
     * Its JSON answers are kept per caller and request while the database is unchanged (http/unchanged-answers.ts):
     * only for answers that depend on nothing but the database, the caller, the URL and the body.
     */
    keepWhileUnchanged?: boolean;
  }
}

export {};

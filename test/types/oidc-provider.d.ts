// oidc-provider ships no types (its @types package trails its releases): the little the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface GrantInstance {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  interface Context {
    oidc: {
      provider: Provider;
      client: { clientId: string };
      session: { accountId: string };
    };
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: new (init: { clientId: string; accountId: string }) => GrantInstance;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    proxy: boolean;
  }
  export type { Context as KoaContextWithOIDC };
}

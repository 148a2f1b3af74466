// Owns: turning the parsed authentication and authorization flags (deploy/auth-flags.ts) into
// the API tier's authenticator chain and authorizer chain, in kube-apiserver's order:
// authenticators — the client certificate, then bearer tokens (each token authenticator in
// turn), then anonymous; authorizers — system:masters, then each --authorization-mode in order.
// Reads the files the flags name; a bad file stops the server with the file's error.
import { authorizersFor, bearerTokenAuthenticator, bootstrapTokenAuthenticator, certificateAuthenticator } from '../api/index.ts';
import type { Authenticator, Authorizer, StoreClient, TokenAuthenticator } from '../api/index.ts';
import type { AuthFlags } from './auth-flags.ts';

export interface AuthWiringInputs {
  readonly flags: AuthFlags;
  /** The API tier's view of the replicated state (tokens, RBAC objects, pods for Node). */
  readonly store: StoreClient;
}

export interface AuthWiring {
  readonly authenticators: readonly Authenticator[];
  readonly authorizers: readonly Authorizer[];
  /** Stops what the wiring started (file watchers, webhook connections). */
  close(): void;
}

function tokenAuthenticators(inputs: AuthWiringInputs): TokenAuthenticator[] {
  const { flags, store } = inputs;
  return [...(flags.enableBootstrapTokenAuth ? [bootstrapTokenAuthenticator(store)] : [])];
}

export async function wireAuth(inputs: AuthWiringInputs): Promise<AuthWiring> {
  const { flags } = inputs;
  const modes = flags.authorizationModes;
  if (modes === undefined) throw new Error('--authorization-config is not supported yet');
  const unsupported = modes.find((mode) => mode === 'ABAC' || mode === 'Node' || mode === 'Webhook');
  if (unsupported !== undefined) throw new Error(`authorization-mode ${unsupported} is not wired yet`);
  const tokens = tokenAuthenticators(inputs);
  return {
    authenticators: [certificateAuthenticator, ...(tokens.length > 0 ? [bearerTokenAuthenticator(tokens)] : [])],
    authorizers: authorizersFor(modes, inputs.store),
    close: () => {},
  };
}

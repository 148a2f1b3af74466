// Owns: the authentication side of the request fuzzer (test/fuzz/request-fuzz.ts): the callers
// beyond the x-test-user header users — anonymous (no credentials), two static token users
// (a parsed token file), a service account of namespace t with a token minted by the server's
// issuer, and bearer tokens that must never authenticate (garbage, a static token with a typo, a
// tampered, unsigned, foreign-key, foreign-issuer, expired, wrong-audience, unknown-account or
// secret-less legacy JWT) — with the server options that authenticate them as deploy/auth-wiring.ts
// assembles a real server's; the generators of TokenRequest (POST serviceaccounts/<name>/token)
// and TokenReview requests; and their checks: who a request was authorized as is exactly who
// its credential names, a bad token is a 401 that reaches no authorizer and never echoes the
// token, a TokenReview authenticates a token as its owner for exactly the audiences the owner's
// authenticator accepts, and a minted token authenticates (SelfSubjectReview) as exactly the
// service account it was requested for, for the audiences it was minted for.
import { generateKeyPairSync } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { KubeObject } from '../../actors/index.ts';
import { bearerTokenAuthenticator } from '../../api/auth/authn.ts';
import type { Authenticator, TokenAuthenticator, UserInfo } from '../../api/auth/authn.ts';
import { anonymousUser } from '../../api/auth/anonymous.ts';
import type { AuthorizationAttributes } from '../../api/auth/authz.ts';
import { serviceAccountTokenAuthenticator } from '../../api/auth/service-account-authn.ts';
import { parseSigningKeyPem, publicKeyOf } from '../../api/auth/service-account-keys.ts';
import type { ServiceAccountSigningKey } from '../../api/auth/service-account-keys.ts';
import { serviceAccountTokenIssuer, serviceAccountUsername } from '../../api/auth/service-account-token.ts';
import type { ServiceAccountTokenIssuer } from '../../api/auth/service-account-token.ts';
import { parseTokenFile, tokenFileAuthenticator } from '../../api/auth/token-file.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/codecs/protobuf.ts';
import type { StoreClient } from '../../api/index.ts';
import type { Random } from './request-fuzz.ts';

export const issuerUrl = 'https://kubernetes.default.svc';
/** --api-audiences of the fuzzed server (the issuer, as kube defaults them, and one more). */
export const apiAudiences: readonly string[] = [issuerUrl, 'kstore'];
/** The service account the fuzzer's service account caller is (namespace t). */
export const robot = { namespace: 't', name: 'robot' } as const;
const authenticationGroup = 'authentication.k8s.io';

export type HeaderUser = 'admin' | 'eve' | 'bob' | 'nobody';
export type TokenFileUser = 'tina' | 'tom';
export const badTokens = [
  'garbage', 'static-typo', 'tampered', 'unsigned', 'foreign-key', 'foreign-issuer', 'expired', 'wrong-audience', 'unknown-account', 'legacy-without-secret', 'json',
] as const;
export type BadToken = (typeof badTokens)[number];
/** Who sends a request: a header user, a token user, the service account, nobody, or a bad token. */
export type Caller = HeaderUser | TokenFileUser | 'robot' | 'anonymous' | `bad:${BadToken}`;

export const headerUsers: Readonly<Record<HeaderUser, string>> = {
  admin: 'admin;system:masters',
  // eve may write roles and bindings in t and read configmaps there.
  eve: 'eve;',
  // bob may get (only get) anything in t.
  bob: 'bob;',
  nobody: 'nobody;',
};

/**
 * The token file: tina (group fuzzers) may mint tokens for robot and read service accounts in
 * t; tom may review tokens (system:auth-delegator). Neither may do anything else.
 */
const tokenFile = parseTokenFile('tina-0f3c9a7e2b,tina,uid-tina,"fuzzers"\ntom-7d1e5b2c94,tom,uid-tom\n', 'fuzz-tokens.csv');
const staticTokens: Readonly<Record<TokenFileUser, string>> = { tina: 'tina-0f3c9a7e2b', tom: 'tom-7d1e5b2c94' };

/** Who a caller authenticates as (undefined: a bad token, which must authenticate as nobody). */
export function identityOf(caller: Caller): UserInfo | undefined {
  if (caller.startsWith('bad:')) return undefined;
  if (caller === 'anonymous') return anonymousUser();
  if (caller === 'robot') {
    return { name: serviceAccountUsername(robot.namespace, robot.name), uid: '', groups: ['system:serviceaccounts', `system:serviceaccounts:${robot.namespace}`, 'system:authenticated'], extra: {} };
  }
  if (caller === 'tina' || caller === 'tom') {
    const entry = tokenFile.entries.find((candidate) => candidate.user.name === caller)!;
    return { ...entry.user, groups: [...entry.user.groups, 'system:authenticated'] };
  }
  const [name = '', groups = ''] = headerUsers[caller as HeaderUser].split(';');
  return { name, uid: '', groups: [...groups.split(',').filter((group) => group !== ''), 'system:authenticated'], extra: {} };
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function payloadOf(jwt: string): Record<string, unknown> | undefined {
  try {
    const claims: unknown = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? claims as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

function newSigningKey(): ServiceAccountSigningKey {
  return parseSigningKeyPem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString());
}

/** A token the fuzzer got from a 201 TokenRequest: for whom and for which audiences. */
export interface MintedRecord {
  readonly token: string;
  readonly namespace: string;
  readonly name: string;
  readonly audiences: readonly string[];
}

/** The credentials and server options of one fuzz run (fresh keys per run). */
export class AuthWorld {
  readonly signingKey = newSigningKey();
  /** Shortens long requests (kube's --service-account-max-token-expiration), so the warning path runs. */
  readonly issuer: ServiceAccountTokenIssuer = serviceAccountTokenIssuer({ signingKey: this.signingKey, issuer: issuerUrl, apiAudiences, maxExpirationSeconds: 48 * 3600 });
  readonly tokenAuthenticators: readonly TokenAuthenticator[];
  readonly authenticators: readonly Authenticator[];
  readonly #tokens = new Map<Exclude<Caller, HeaderUser | 'anonymous'>, string>();
  /** Tokens minted through TokenRequest during the run (the latest last). */
  readonly minted: MintedRecord[] = [];
  /** The TokenReviews answered 201 during the run: whether they authenticated their token. */
  readonly reviews: { readonly authenticated: boolean }[] = [];

  constructor(readonly store: StoreClient, headerAuthenticator: Authenticator) {
    const serviceAccounts = serviceAccountTokenAuthenticator({ publicKeys: [publicKeyOf(this.signingKey)], issuers: [issuerUrl], apiAudiences, reader: store });
    this.tokenAuthenticators = [tokenFileAuthenticator(tokenFile), serviceAccounts];
    this.authenticators = [headerAuthenticator, bearerTokenAuthenticator(this.tokenAuthenticators)];
  }

  /** What buildServer takes for these callers (through the harness). */
  serverOptions(): { anonymous: { enabled: true }; serviceAccountTokens: ServiceAccountTokenIssuer; tokenAuthenticators: readonly TokenAuthenticator[]; apiAudiences: readonly string[]; authenticators: readonly Authenticator[] } {
    return { anonymous: { enabled: true }, serviceAccountTokens: this.issuer, tokenAuthenticators: this.tokenAuthenticators, apiAudiences, authenticators: this.authenticators };
  }

  /** Mints robot's token and the bad tokens; robot must exist in the store. */
  async mintTokens(): Promise<void> {
    const account = this.store.get({ group: '', resource: 'serviceaccounts', namespace: robot.namespace, name: robot.name });
    if (account === undefined) throw new Error('fixture: robot service account missing');
    const serviceAccount = { ...robot, uid: account.metadata.uid ?? '' };
    const robotToken = (await this.issuer.mint({ serviceAccount, audiences: apiAudiences, expirationSeconds: 3600 })).token;
    const [header = '', , signature = ''] = robotToken.split('.');
    const claims = payloadOf(robotToken)!;
    const foreignKey = serviceAccountTokenIssuer({ signingKey: newSigningKey(), issuer: issuerUrl, apiAudiences });
    const foreignIssuer = serviceAccountTokenIssuer({ signingKey: this.signingKey, issuer: 'https://elsewhere.example', apiAudiences });
    const past = serviceAccountTokenIssuer({ signingKey: this.signingKey, issuer: issuerUrl, apiAudiences, now: () => new Date(Date.now() - 3 * 3600_000) });
    const tokens: [Exclude<Caller, HeaderUser | 'anonymous'>, string][] = [
      ['tina', staticTokens.tina],
      ['tom', staticTokens.tom],
      ['robot', robotToken],
      ['bad:garbage', 'Zm9vYmFy.bm90LWEtdG9rZW4'],
      ['bad:static-typo', `${staticTokens.tina}x`],
      // robot's signature over a payload that names another account.
      ['bad:tampered', `${header}.${base64url({ ...claims, sub: serviceAccountUsername('t', 'default'), 'kubernetes.io': { namespace: 't', serviceaccount: { name: 'default', uid: serviceAccount.uid } } })}.${signature}`],
      ['bad:unsigned', `${base64url({ alg: 'none' })}.${base64url(claims)}.`],
      ['bad:foreign-key', (await foreignKey.mint({ serviceAccount, audiences: apiAudiences, expirationSeconds: 3600 })).token],
      ['bad:foreign-issuer', (await foreignIssuer.mint({ serviceAccount, audiences: apiAudiences, expirationSeconds: 3600 })).token],
      ['bad:expired', (await past.mint({ serviceAccount, audiences: apiAudiences, expirationSeconds: 600 })).token],
      ['bad:wrong-audience', (await this.issuer.mint({ serviceAccount, audiences: ['vault'], expirationSeconds: 3600 })).token],
      ['bad:unknown-account', (await this.issuer.mint({ serviceAccount: { namespace: 't', name: 'ghost', uid: 'ghost-uid' }, audiences: apiAudiences, expirationSeconds: 3600 })).token],
      ['bad:legacy-without-secret', await this.issuer.mintLegacy({ serviceAccount, secretName: 'robot-token-gone' })],
      ['bad:json', `{"iss":"${issuerUrl}","sub":"${serviceAccountUsername('t', 'robot')}"}`],
    ];
    for (const [caller, token] of tokens) this.#tokens.set(caller, token);
  }

  tokenOf(caller: Exclude<Caller, HeaderUser | 'anonymous'>): string {
    const token = this.#tokens.get(caller);
    if (token === undefined) throw new Error(`no token for ${caller}`);
    return token;
  }

  /** The request headers that carry `caller`'s credential (`scheme`: how "Bearer" is spelled). */
  headersFor(caller: Caller, scheme: string): Record<string, string> {
    if (caller === 'anonymous') return {};
    if (caller in headerUsers) return { 'x-test-user': headerUsers[caller as HeaderUser] };
    return { authorization: `${scheme} ${this.tokenOf(caller as Exclude<Caller, HeaderUser | 'anonymous'>)}` };
  }

  /** The token a TokenReview's spec.token names, resolved against this run's tokens. */
  reviewedToken(choice: ReviewedToken): string {
    const token = choice.token === 'none' ? '' : choice.token === 'minted' ? this.minted.at(-1)?.token ?? 'never-minted' : this.tokenOf(choice.token);
    return choice.spelling === 'leading-space' ? ` ${token}` : choice.spelling === 'trailing-word' ? `${token} trailing` : token;
  }
}

/** The token a generated TokenReview asks about, symbolically (resolved per run: keys are per run). */
export interface ReviewedToken {
  readonly token: Exclude<Caller, HeaderUser | 'anonymous'> | 'minted' | 'none';
  readonly spelling: 'exact' | 'leading-space' | 'trailing-word';
}

/** A generated request of the auth endpoints: a canonical path, a body and, for TokenReview, the token asked about. */
export interface AuthEndpointRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query: readonly string[];
  readonly contentType: string | undefined;
  /** The body, with `@token@` standing for the reviewed token's JSON string. */
  readonly body: string | undefined;
  readonly reviewed: ReviewedToken | undefined;
}

const allContentTypes = [
  'application/json', 'application/json', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf',
  'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
  'text/plain', 'application/xml', 'application/json; charset=utf-8',
] as const;

/** expirationSeconds as written in the JSON text: kube's int64, numbers JSON cannot hold exactly, and non-numbers. */
const validExpirations = [undefined, '3600', '600', '3607', '86400', String(48 * 3600 + 1), String(2 ** 32)] as const;
const oddExpirations = [
  '599', '0', '-1', '-600', String(2 ** 32 + 1), '1.5', '3600.5', '1e3', '1e400', '-1e400', '9223372036854775807', '9223372036854775808',
  '-9223372036854775809', '99999999999999999999999', '9007199254740993', '"3600"', 'null', 'true', '[]',
] as const;

const validAudiences: readonly unknown[] = [undefined, [], ['kstore'], [issuerUrl], ['vault'], ['vault', 'kstore'], [''], ['kstore', 'kstore']];
const oddAudiences: readonly unknown[] = ['kstore', [7], null, { a: 'b' }];

const validBoundRefs: readonly unknown[] = [
  undefined, undefined, null, { kind: 'Pod', apiVersion: 'v1', name: 'runner' }, { kind: 'Secret', apiVersion: 'v1', name: 'mine' }, { kind: 'Node', apiVersion: 'v1', name: 'node-1' },
];
const oddBoundRefs: readonly unknown[] = [
  { kind: 'Pod', name: 'runner', uid: 'wrong-uid' }, { kind: 'Pod', apiVersion: 'v1', name: 'c' }, { kind: 'Pod', apiVersion: 'apps/v1', name: 'runner' },
  { kind: 'Pod', apiVersion: 'a/b/c', name: 'runner' }, { kind: 'Secret', name: 'mine', uid: 'forged-uid' }, { kind: 'Secret', name: '' }, { kind: 'Node', name: 'absent' },
  { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' }, { kind: 'Deployment', apiVersion: 'apps/v1', name: 'x' }, { kind: '', name: '' },
  { kind: 5 }, { name: ['x'] }, 'x', [],
];

/** Serializes `object` for `contentType`, with raw JSON number text substituted (YAML and protobuf get the parsed value). */
function encodeBody(object: Record<string, unknown>, contentType: string, rawExpiration: string | undefined, random: Random, wellFormed = false): string | undefined {
  if (rawExpiration !== undefined && contentType.includes('json')) return JSON.stringify(object).replace('"@expiration@"', rawExpiration);
  const spec = object['spec'];
  const parsed: Record<string, unknown> = rawExpiration === undefined || spec === null || typeof spec !== 'object' ? object
    : { ...object, spec: { ...(spec as Record<string, unknown>), expirationSeconds: JSON.parse(rawExpiration) as unknown } };
  if (contentType.includes('yaml')) return toYaml(parsed);
  if (contentType.includes('protobuf')) {
    if (!wellFormed && random.chance(0.3)) return JSON.stringify(parsed);
    // A TokenReview has a protobuf message; a TokenRequest body is sent as whatever encodes.
    try {
      return encodeProtobufObject(parsed).toString('latin1');
    } catch {
      return encodeProtobufObject({ apiVersion: `${authenticationGroup}/v1`, kind: 'TokenReview', spec: { token: '@token@' } }).toString('latin1');
    }
  }
  return !wellFormed && random.chance(0.05) ? '{"spec":' : JSON.stringify(parsed);
}

function pickMethod(random: Random): AuthEndpointRequest['method'] {
  return random.chance(0.85) ? 'POST' : random.pick(['GET', 'PUT', 'PATCH', 'DELETE'] as const);
}

function endpointQuery(random: Random): string[] {
  const query: string[] = [];
  if (random.chance(0.25)) query.push(`dryRun=${random.pick(['All', 'All', 'Bogus', ''])}`);
  if (random.chance(0.1)) query.push('fieldManager=fuzz');
  if (random.chance(0.05)) query.push(`fieldValidation=${random.pick(['Strict', 'Bogus'])}`);
  return query;
}

/** Picks a field's value: from the well-formed choices when `wellFormed`, else from all of them. */
function choose<T>(random: Random, wellFormed: boolean, valid: readonly T[], odd: readonly T[]): T {
  return random.pick(wellFormed ? valid : [...valid, ...odd]);
}

/**
 * POST serviceaccounts/<name>/token with a random TokenRequest; about half are well formed (a
 * JSON or YAML TokenRequest of valid fields for an account of t), so tokens get minted.
 */
export function generateTokenRequest(random: Random): AuthEndpointRequest {
  const wellFormed = random.chance(0.5);
  const namespace = choose(random, wellFormed, ['t'], ['t', 'default', 'nowhere']);
  const name = choose(random, wellFormed, ['robot', 'robot', 'default'], ['ghost', 'c']);
  const method = wellFormed ? 'POST' : pickMethod(random);
  const spec: Record<string, unknown> = {};
  const audiences = choose(random, wellFormed, validAudiences, oddAudiences);
  if (audiences !== undefined) spec['audiences'] = audiences;
  const expiration = choose(random, wellFormed, validExpirations, oddExpirations);
  if (expiration !== undefined) spec['expirationSeconds'] = '@expiration@';
  const ref = choose(random, wellFormed, validBoundRefs, oddBoundRefs);
  if (ref !== undefined) spec['boundObjectRef'] = ref;
  const object: Record<string, unknown> = {
    ...(random.chance(0.9) ? { apiVersion: choose(random, wellFormed, [`${authenticationGroup}/v1`], ['v1', `${authenticationGroup}/v1beta1`, '']) } : {}),
    ...(random.chance(0.9) ? { kind: choose(random, wellFormed, ['TokenRequest'], ['TokenReview', 'ServiceAccount', '']) } : {}),
    ...(random.chance(0.3) ? { metadata: choose<unknown>(random, wellFormed, [{}, { name }, { namespace }], [{ name: 'other' }, { namespace: 'other' }, { name, uid: 'forged' }, 'x']) } : {}),
    ...(wellFormed || random.chance(0.95) ? { spec: wellFormed || random.chance(0.97) ? spec : random.pick(['x', [], 3]) } : {}),
  };
  const contentType = wellFormed ? random.pick(['application/json', 'application/json', 'application/yaml']) : random.chance(0.05) ? undefined : random.pick(allContentTypes);
  const body = method === 'GET' || (method === 'DELETE' && random.chance(0.7)) ? undefined
    : !wellFormed && random.chance(0.03) ? '' : encodeBody(object, contentType ?? 'application/json', expiration, random);
  return { method, path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, query: endpointQuery(random), contentType, body, reviewed: undefined };
}

const reviewedTokens: readonly ReviewedToken['token'][] = [
  'tina', 'tom', 'robot', 'robot', 'minted', 'minted', 'none', ...badTokens.map((bad) => `bad:${bad}` as const),
];

/** POST tokenreviews with a random TokenReview: which token, for which audiences; about half well formed. */
export function generateTokenReview(random: Random): AuthEndpointRequest {
  const wellFormed = random.chance(0.5);
  const method = wellFormed ? 'POST' : pickMethod(random);
  const audiences = choose(random, wellFormed, validAudiences, oddAudiences);
  const reviewed: ReviewedToken = {
    token: choose(random, wellFormed, ['tina', 'tom', 'robot', 'robot', 'minted', 'minted', 'bad:wrong-audience'], reviewedTokens),
    spelling: random.pick(['exact', 'exact', 'exact', 'exact', 'leading-space', 'trailing-word'] as const),
  };
  const spec: Record<string, unknown> = { token: '@token@' };
  if (audiences !== undefined) spec['audiences'] = audiences;
  if (!wellFormed && random.chance(0.05)) spec['token'] = random.pick([7, null, ['x']]);
  const object: Record<string, unknown> = {
    ...(random.chance(0.9) ? { apiVersion: choose(random, wellFormed, [`${authenticationGroup}/v1`], [`${authenticationGroup}/v1beta1`, 'v1', '']) } : {}),
    ...(random.chance(0.9) ? { kind: choose(random, wellFormed, ['TokenReview'], ['TokenRequest', '']) } : {}),
    ...(random.chance(0.2) ? { metadata: choose<unknown>(random, wellFormed, [{}, { name: 'x' }, { namespace: 't' }], [{ uid: 'forged', creationTimestamp: '2020-01-01T00:00:00Z' }, 'x']) } : {}),
    ...(wellFormed || random.chance(0.97) ? { spec: wellFormed || random.chance(0.97) ? spec : random.pick(['x', [], 3]) } : {}),
  };
  const contentType = wellFormed ? random.pick(['application/json', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']) : random.chance(0.05) ? undefined : random.pick(allContentTypes);
  const body = method === 'GET' || (method === 'DELETE' && random.chance(0.7)) ? undefined
    : !wellFormed && random.chance(0.03) ? '' : encodeBody(object, contentType ?? 'application/json', undefined, random, wellFormed);
  return { method, path: `/apis/${authenticationGroup}/v1/tokenreviews`, query: endpointQuery(random), contentType, body, reviewed };
}

/** The body with the reviewed token put in: JSON and YAML as a string literal, protobuf re-encoded. */
export function bodyWithToken(body: string | undefined, contentType: string | undefined, token: string): string | undefined {
  if (body === undefined || !body.includes('@token@')) return body;
  if ((contentType ?? '').includes('protobuf') && body.startsWith('k8s\u0000')) {
    // A protobuf TokenReview carries the placeholder inside the message: re-encode with the token.
    try {
      const decoded = decodeProtobufObject(Buffer.from(body, 'latin1'));
      const spec = decoded['spec'];
      if (spec === null || typeof spec !== 'object' || (spec as Record<string, unknown>)['token'] !== '@token@') return body;
      return encodeProtobufObject({ ...decoded, spec: { ...(spec as Record<string, unknown>), token } }).toString('latin1');
    } catch {
      return body;
    }
  }
  return body.replace(/"@token@"|'@token@'|@token@/, JSON.stringify(token));
}

/** A response body as an object (JSON, YAML or protobuf), undefined when it is none. */
export function decodedResponse(response: LightMyRequestResponse): Record<string, unknown> | undefined {
  const contentType = String(response.headers['content-type'] ?? '');
  try {
    const value: unknown = contentType.includes('protobuf') ? decodeProtobufObject(response.rawPayload)
      : contentType.includes('yaml') ? parseYaml(response.body) : JSON.parse(response.body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().every((group, index) => group === [...b].sort()[index]);
}

/**
 * Every authorization a request asked was for exactly the caller's identity; a bad token asks
 * none (it is a 401, never anonymous). '' when that holds.
 */
export function checkAuthenticatedAs(caller: Caller, attributes: readonly AuthorizationAttributes[]): string {
  const expected = identityOf(caller);
  for (const { user } of attributes) {
    if (expected === undefined) return `a bad bearer token (${caller}) was authorized as ${user.name}`;
    if (user.name !== expected.name || !sameGroups(user.groups, expected.groups)) {
      return `${caller} was authorized as ${user.name} [${user.groups.join(',')}], not ${expected.name} [${expected.groups.join(',')}]`;
    }
  }
  return '';
}

/** A bad bearer token is answered 401 (or refused before authentication, as every caller is), and the answer never holds it. */
export function checkBadToken(caller: Caller, status: number, body: string, world: AuthWorld): string {
  if (!caller.startsWith('bad:')) return '';
  const token = world.tokenOf(caller as `bad:${BadToken}`);
  if (body.includes(token)) return `the answer to a bad bearer token (${caller}) holds the token`;
  if (status !== 401 && status !== 400) return `a bad bearer token (${caller}) was answered ${status}, not 401`;
  return '';
}

function coreObject(world: AuthWorld, resource: string, namespace: string, name: string): KubeObject | undefined {
  return world.store.get({ group: '', resource, namespace, name });
}

/** Whether the reviewed token must authenticate, and as whom (undefined: it must not). */
function expectedReview(world: AuthWorld, token: string, asked: readonly string[]): { readonly user: string; readonly certain: boolean } | undefined {
  const wanted = asked.length > 0 ? asked : apiAudiences;
  const word = `Bearer ${token}`.trim().split(' ')[1] ?? '';
  if (word === '') return undefined;
  const apiAudience = wanted.some((audience) => apiAudiences.includes(audience));
  for (const user of ['tina', 'tom'] as const) if (word === world.tokenOf(user)) return apiAudience ? { user, certain: true } : undefined;
  const robotAccount = coreObject(world, 'serviceaccounts', robot.namespace, robot.name);
  const robotName = serviceAccountUsername(robot.namespace, robot.name);
  // robot's tokens depend on robot (the run may delete its namespace): certain only while it exists.
  if (word === world.tokenOf('robot')) return apiAudience ? { user: robotName, certain: robotAccount !== undefined && robotAccount.metadata.deletionTimestamp == null } : undefined;
  if (word === world.tokenOf('bad:wrong-audience')) return wanted.includes('vault') ? { user: robotName, certain: robotAccount !== undefined && robotAccount.metadata.deletionTimestamp == null } : undefined;
  const minted = world.minted.find((record) => record.token === word);
  // A minted token may be bound to an object the run deleted since: its owner is known, not whether it still holds.
  if (minted !== undefined) return wanted.some((audience) => minted.audiences.includes(audience)) ? { user: serviceAccountUsername(minted.namespace, minted.name), certain: false } : undefined;
  return undefined;
}

/** The spec.token and spec.audiences of a TokenReview body as sent (decoded here, not as the server read it). */
function sentReviewSpec(body: string | undefined, contentType: string | undefined): { readonly token: string; readonly audiences: readonly string[] } | undefined {
  if (body === undefined) return undefined;
  let decoded: unknown;
  try {
    decoded = (contentType ?? '').includes('protobuf') ? decodeProtobufObject(Buffer.from(body, 'latin1')) : (contentType ?? '').includes('yaml') ? parseYaml(body) : JSON.parse(body);
  } catch {
    return undefined;
  }
  const spec = (decoded as { spec?: { token?: unknown; audiences?: unknown } } | null)?.spec;
  if (spec === null || typeof spec !== 'object' || typeof spec.token !== 'string') return undefined;
  const audiences = Array.isArray(spec.audiences) && spec.audiences.every((audience) => typeof audience === 'string') ? spec.audiences as string[] : [];
  return { token: spec.token, audiences };
}

/**
 * A TokenReview answered 201 authenticated the token it was sent (`body` as sent, for the
 * audiences it named) as the token's owner, exactly when it must, and its error never holds the
 * token.
 */
export function checkTokenReview(world: AuthWorld, request: { readonly reviewed: ReviewedToken | undefined; readonly contentType: string | undefined }, body: string | undefined, status: number, served: Record<string, unknown> | undefined): string {
  if (request.reviewed === undefined || status !== 201) return '';
  if (served?.['kind'] !== 'TokenReview') return `a TokenReview answered 201 with a ${String(served?.['kind'])}`;
  const sent = sentReviewSpec(body, request.contentType);
  if (sent === undefined) return `a TokenReview whose body holds no spec.token was answered 201`;
  const { token, audiences: asked } = sent;
  const answer = (served['status'] ?? {}) as { authenticated?: unknown; user?: { username?: unknown }; audiences?: unknown; error?: unknown };
  const expected = expectedReview(world, token, asked);
  world.reviews.push({ authenticated: answer.authenticated === true });
  const word = `Bearer ${token}`.trim().split(' ')[1] ?? '';
  if (typeof answer.error === 'string' && word.length >= 8 && answer.error.includes(word)) return 'a TokenReview error holds the token';
  if (answer.authenticated === true) {
    if (expected === undefined) return `a TokenReview authenticated a token that must not authenticate (${request.reviewed.token}, as ${String(answer.user?.username)})`;
    if (answer.user?.username !== expected.user) return `a TokenReview authenticated ${request.reviewed.token}'s token as ${String(answer.user?.username)}, not ${expected.user}`;
    const wanted = asked.length > 0 ? asked : apiAudiences;
    const accepted = Array.isArray(answer.audiences) ? answer.audiences : [];
    if (!accepted.some((audience) => wanted.includes(audience as string))) return `a TokenReview accepted the token for ${JSON.stringify(accepted)}, none of ${JSON.stringify(wanted)}`;
    return '';
  }
  if (expected?.certain === true) return `a TokenReview did not authenticate ${request.reviewed.token}'s valid token for ${JSON.stringify(asked)}`;
  return '';
}

/** The TokenRequest a 201 served: the namespace and name it answered for and the token it minted. */
export function mintedBy(served: Record<string, unknown> | undefined): { namespace: string; name: string; token: string; audiences: string[]; boundPod: string | undefined } | undefined {
  if (served?.['kind'] !== 'TokenRequest') return undefined;
  const metadata = (served['metadata'] ?? {}) as { namespace?: unknown; name?: unknown };
  const spec = (served['spec'] ?? {}) as { audiences?: unknown; boundObjectRef?: { kind?: unknown; name?: unknown } | null };
  const token = ((served['status'] ?? {}) as { token?: unknown }).token;
  return {
    namespace: String(metadata.namespace ?? ''), name: String(metadata.name ?? ''), token: typeof token === 'string' ? token : '',
    audiences: Array.isArray(spec.audiences) ? spec.audiences.map(String) : [],
    boundPod: spec.boundObjectRef?.kind === 'Pod' && typeof spec.boundObjectRef.name === 'string' ? spec.boundObjectRef.name : undefined,
  };
}

/**
 * A 201 TokenRequest was authorized as create serviceaccounts/token on the account it answered
 * for, and its token names that account, for the audiences the answer says. '' when it holds.
 */
export function checkTokenRequestServed(served: Record<string, unknown> | undefined, authorized: AuthorizationAttributes | undefined): string {
  const minted = mintedBy(served);
  if (minted === undefined) return '';
  if (authorized === undefined) return 'a TokenRequest was served without an authorization';
  if (authorized.verb !== 'create' || authorized.apiGroup !== '' || authorized.resource !== 'serviceaccounts' || authorized.subresource !== 'token') {
    return `a TokenRequest was served authorized as ${authorized.verb} ${authorized.resource}/${authorized.subresource}`;
  }
  if (authorized.namespace !== minted.namespace || authorized.name !== minted.name) {
    return `a TokenRequest answered for ${minted.namespace}/${minted.name} but was authorized for ${authorized.namespace}/${authorized.name}`;
  }
  const claims = payloadOf(minted.token);
  if (claims === undefined) return 'a TokenRequest answered with a token that is no JWT';
  if (claims['sub'] !== serviceAccountUsername(authorized.namespace, authorized.name)) return `a token requested for ${authorized.namespace}/${authorized.name} names ${String(claims['sub'])}`;
  const aud = Array.isArray(claims['aud']) ? claims['aud'] : [];
  if (JSON.stringify(aud) !== JSON.stringify(minted.audiences)) return `a token's audiences ${JSON.stringify(aud)} are not the answer's ${JSON.stringify(minted.audiences)}`;
  return '';
}

/** What a follow-up request answered and the identities its authorizations were asked for. */
export interface FollowUp {
  readonly response: LightMyRequestResponse;
  readonly authorizedAs: readonly UserInfo[];
}

/**
 * A minted token, used as a bearer token on a SelfSubjectReview, is exactly the service account
 * it was requested for — username, the account's uid, its groups, the bound pod — as the review
 * answers it (201) and as its authorization was asked (also when the run's RBAC changes refuse
 * the review, 403); a 401 when none of its audiences is an API audience. Records the token for
 * later TokenReviews.
 */
export async function checkMintedToken(world: AuthWorld, served: Record<string, unknown> | undefined, send: (headers: Record<string, string>) => Promise<FollowUp>): Promise<string> {
  const minted = mintedBy(served);
  if (minted === undefined || minted.token === '') return '';
  world.minted.push({ token: minted.token, namespace: minted.namespace, name: minted.name, audiences: minted.audiences });
  const { response, authorizedAs } = await send({ authorization: `Bearer ${minted.token}`, 'content-type': 'application/json' });
  if (response.body.includes(minted.token)) return 'a SelfSubjectReview answer holds the bearer token';
  if (!minted.audiences.some((audience) => apiAudiences.includes(audience))) {
    if (response.statusCode === 401 && authorizedAs.length === 0) return '';
    return `a token minted for ${JSON.stringify(minted.audiences)} (no API audience) was answered ${response.statusCode}, not 401`;
  }
  if (response.statusCode !== 201 && response.statusCode !== 403) return `a token minted for ${minted.namespace}/${minted.name} was answered ${response.statusCode}: ${response.body.slice(0, 200)}`;
  const reviewed = response.statusCode === 201
    ? ((response.json() as { status?: { userInfo?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } } }).status?.userInfo) ?? {}
    : undefined;
  const identities: { readonly username?: string | undefined; readonly uid?: string | undefined; readonly groups?: readonly string[] | undefined; readonly extra?: Readonly<Record<string, readonly string[]>> | undefined }[] = [
    ...(reviewed === undefined ? [] : [reviewed]), ...authorizedAs.map((user) => ({ username: user.name, uid: user.uid, groups: user.groups, extra: user.extra })),
  ];
  if (authorizedAs.length === 0) return `a token minted for ${minted.namespace}/${minted.name} was answered ${response.statusCode} without an authorization`;
  const account = coreObject(world, 'serviceaccounts', minted.namespace, minted.name);
  const expected = serviceAccountUsername(minted.namespace, minted.name);
  for (const identity of identities) {
    if (identity.username !== expected) return `a token minted for ${expected} authenticates as ${String(identity.username)}`;
    if (identity.uid !== (account?.metadata.uid ?? '')) return `a token minted for ${expected} authenticates with uid ${String(identity.uid)}, not the account's ${String(account?.metadata.uid)}`;
    if (!sameGroups(identity.groups ?? [], ['system:serviceaccounts', `system:serviceaccounts:${minted.namespace}`, 'system:authenticated'])) {
      return `a token minted for ${expected} authenticates in groups ${JSON.stringify(identity.groups)}`;
    }
    const podName = identity.extra?.['authentication.kubernetes.io/pod-name'];
    if (JSON.stringify(podName) !== JSON.stringify(minted.boundPod === undefined ? undefined : [minted.boundPod])) {
      return `a token minted for ${expected} bound to pod ${String(minted.boundPod)} authenticates with pod-name ${JSON.stringify(podName)}`;
    }
  }
  return '';
}

const rbacGroup = 'rbac.authorization.k8s.io';

/** The fixture objects the auth callers need: robot and its pod, node-1, and the token users' and robot's narrow rights. */
export const authFixtureObjects: readonly [string, Record<string, unknown>][] = [
  ['/api/v1/namespaces/t/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: robot.name } }],
  ['/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } }],
  ['/api/v1/namespaces/t/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'runner' }, spec: { serviceAccountName: robot.name, nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } }],
  [`/apis/${rbacGroup}/v1/namespaces/t/roles`, { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name: 'robot-minter' }, rules: [
    { apiGroups: [''], resources: ['serviceaccounts/token'], resourceNames: [robot.name], verbs: ['create'] },
    { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'] },
  ] }],
  [`/apis/${rbacGroup}/v1/namespaces/t/rolebindings`, { apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'robot-minter' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'robot-minter' }, subjects: [{ kind: 'Group', name: 'fuzzers' }] }],
  [`/apis/${rbacGroup}/v1/clusterrolebindings`, { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'tom-reviews' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'system:auth-delegator' }, subjects: [{ kind: 'User', name: 'tom' }] }],
  [`/apis/${rbacGroup}/v1/namespaces/t/roles`, { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name: 'robot-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }],
  [`/apis/${rbacGroup}/v1/namespaces/t/rolebindings`, { apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'robot-reader' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'robot-reader' }, subjects: [{ kind: 'ServiceAccount', name: robot.name, namespace: robot.namespace }] }],
];

/** The callers whose rights are probed after every request (the header users are probed by the caller). */
export const probedAuthCallers = ['anonymous', 'tina', 'tom', 'robot'] as const;

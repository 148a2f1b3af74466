// Owns: the legacy service account token minter of kube-controller-manager's
// --service-account-private-key-file: reads the PEM private key (RSA or ECDSA, as kube's
// keyutil.PrivateKeyFromFile) and signs the serviceaccount-token-controller's secret-based tokens
// with it (issuer kubernetes/serviceaccount, kube's LegacyClaims). The API tier verifies them
// with the matching public key (--service-account-key-file).
import { legacyIssuer, loadSigningKeyFile, serviceAccountTokenIssuer } from '../api/index.ts';
import type { LegacyServiceAccountTokens } from '../actors/controllers/index.ts';

function signingKeyOf(privateKeyFile: string): ReturnType<typeof loadSigningKeyFile> {
  try {
    return loadSigningKeyFile(privateKeyFile);
  } catch (error) {
    throw new Error(`error reading key for service account token controller: ${(error as Error).message}`);
  }
}

/** The minter for the key file; throws with kube-controller-manager's message when the key cannot be read. */
export function legacyTokenMinter(privateKeyFile: string): LegacyServiceAccountTokens {
  const signingKey = signingKeyOf(privateKeyFile);
  // Only the legacy claims are minted here; a bound token's issuer and audiences do not apply.
  const issuer = serviceAccountTokenIssuer({ signingKey, issuer: legacyIssuer, apiAudiences: [] });
  return {
    mint: (spec) => issuer.mintLegacy({
      serviceAccount: { namespace: spec.namespace, name: spec.serviceAccountName, uid: spec.serviceAccountUid },
      secretName: spec.secretName,
    }),
  };
}

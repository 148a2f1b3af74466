// Owns: certificates.k8s.io/v1 CertificateSigningRequests: names, scope and the approval and
// status subresources as kube-apiserver 1.33 serves them, kube's printer columns
// (printers-networking.ts), the spec.signerName field selector, schema and strategy
// (strategy-certificates.ts).
import type { ResourceKind } from '../kind.ts';
import { nameColumn, schemaOf, standardVerbs } from '../kind.ts';
import { csrCondition, csrRequestedDuration, csrSignerName } from '../printers-networking.ts';
import { nested as path, stringOf } from '../printers.ts';
import { certificateSigningRequestStrategy } from '../strategy-certificates.ts';

export const certificatesKinds: readonly ResourceKind[] = [
  {
    group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', singular: 'certificatesigningrequest', kind: 'CertificateSigningRequest',
    namespaced: false, shortNames: ['csr'], categories: [], verbs: standardVerbs,
    subresources: [
      { name: 'approval', verbs: ['get', 'patch', 'update'] },
      { name: 'status', verbs: ['get', 'patch', 'update'] },
    ],
    // kube accepts any name a path can carry (ValidateCertificateRequestName).
    nameRule: 'pathSegment',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Age', type: 'string', description: 'The time since the request was created.', priority: 0, cell: (o, since) => since(path(o, 'metadata', 'creationTimestamp')) },
      { name: 'SignerName', type: 'string', description: 'The signer the certificate is requested from.', priority: 0, cell: (o) => csrSignerName(o) },
      { name: 'Requestor', type: 'string', description: 'The user who created the request.', priority: 0, cell: (o) => stringOf(path(o, 'spec', 'username')) },
      { name: 'RequestedDuration', type: 'string', description: 'The validity the request asks the certificate to have.', priority: 0, cell: (o) => csrRequestedDuration(o) },
      { name: 'Condition', type: 'string', description: 'Whether the request is pending, approved or denied, failed, and issued.', priority: 0, cell: (o) => csrCondition(o) },
    ],
    fieldSelectors: { 'spec.signerName': (o) => stringOf(path(o, 'spec', 'signerName')) },
    strategy: certificateSigningRequestStrategy,
    schema: schemaOf('k8s.io.api.certificates.v1.CertificateSigningRequest'),
  },
];

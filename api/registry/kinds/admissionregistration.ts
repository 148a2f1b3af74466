// Owns: the admissionregistration.k8s.io/v1 kinds kstore serves — MutatingWebhookConfiguration,
// ValidatingWebhookConfiguration, ValidatingAdmissionPolicy (with its status subresource) and
// ValidatingAdmissionPolicyBinding: names (category api-extensions, no short names), kube's
// printer columns, schema and strategy (strategy-admissionregistration.ts). They are stored and
// validated; no webhook is called and no policy enforced yet.
import type { ResourceKind } from '../kind.ts';
import { schemaOf, standardVerbs } from '../kind.ts';
import { paramKindCell, paramRefCell, validationCount, webhookCount } from '../printers-control.ts';
import { stringOf, nested as path } from '../printers.ts';
import {
  mutatingWebhookConfigurationStrategy, validatingAdmissionPolicyBindingStrategy, validatingAdmissionPolicyStrategy,
  validatingWebhookConfigurationStrategy,
} from '../strategy-admissionregistration.ts';

const common = {
  group: 'admissionregistration.k8s.io', version: 'v1', namespaced: false, shortNames: [], categories: ['api-extensions'],
  verbs: standardVerbs, nameRule: 'dns1123Subdomain',
} as const;

const webhooksColumn = {
  name: 'Webhooks', type: 'integer', priority: 0, description: 'Webhooks indicates the number of webhooks configured in this configuration',
  cell: (o: Record<string, unknown>) => webhookCount(o),
} as const;

export const admissionregistrationKinds: readonly ResourceKind[] = [
  {
    ...common, resource: 'mutatingwebhookconfigurations', singular: 'mutatingwebhookconfiguration', kind: 'MutatingWebhookConfiguration',
    columns: [webhooksColumn],
    strategy: mutatingWebhookConfigurationStrategy,
    schema: schemaOf('k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration'),
  },
  {
    ...common, resource: 'validatingadmissionpolicies', singular: 'validatingadmissionpolicy', kind: 'ValidatingAdmissionPolicy',
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    columns: [
      { name: 'Validations', type: 'integer', priority: 0, description: 'Validations indicates the number of validation rules defined in this configuration', cell: (o) => validationCount(o) },
      { name: 'ParamKind', type: 'string', priority: 0, description: 'ParamKind specifies the kind of resources used to parameterize this policy', cell: (o) => paramKindCell(o) },
    ],
    strategy: validatingAdmissionPolicyStrategy,
    schema: schemaOf('k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicy'),
  },
  {
    ...common, resource: 'validatingadmissionpolicybindings', singular: 'validatingadmissionpolicybinding', kind: 'ValidatingAdmissionPolicyBinding',
    columns: [
      { name: 'PolicyName', type: 'string', priority: 0, description: 'PolicyName indicates the policy definition which the policy binding binded to', cell: (o) => stringOf(path(o, 'spec', 'policyName')) },
      { name: 'ParamRef', type: 'string', priority: 0, description: 'ParamRef indicates the param resource which sets the configration param', cell: (o) => paramRefCell(o) },
    ],
    strategy: validatingAdmissionPolicyBindingStrategy,
    schema: schemaOf('k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding'),
  },
  {
    ...common, resource: 'validatingwebhookconfigurations', singular: 'validatingwebhookconfiguration', kind: 'ValidatingWebhookConfiguration',
    columns: [webhooksColumn],
    strategy: validatingWebhookConfigurationStrategy,
    schema: schemaOf('k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration'),
  },
];

// The protobuf wire format of Service (kubectl create service sends it) and policy/v1 Eviction
// (kubectl drain): a body captured from kubectl 1.32.4, and round trips of intstr.IntOrString.
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';

/** `kubectl create service clusterip web --tcp=80:8080 -v=8`, the request body's bytes. */
const kubectlCreateService = Buffer.from(
  '6b3873000a0d0a0276311207536572766963651269' +
  '0a1f0a0377656212001a00220' + '02a00320038004200' + '5a0a0a036170701203776562' +
  '12420a1b0a0738302d383038301203544350185022070800109' + '03f1a002800' +
  '120a0a0361707012037765621a002209436c75737465724950' + '3a0042005200' + '5a00600068001a020a00' + '1a002200', 'hex');

describe('protobuf Service', () => {
  it('decodes what kubectl create service sends, targetPort as a number', () => {
    expect(decodeProtobufObject(kubectlCreateService)).toEqual({
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: 'web', labels: { app: 'web' }, creationTimestamp: null },
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'web' }, type: 'ClusterIP' },
      status: { loadBalancer: {} },
    });
  });

  it('round-trips a named targetPort, node ports and the pointer fields', () => {
    const service = {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'np', namespace: 't' },
      spec: {
        ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'web', nodePort: 30000 }, { name: 'zero', protocol: 'UDP', port: 53, targetPort: 0 }],
        clusterIP: '10.96.0.2', clusterIPs: ['10.96.0.2'], type: 'NodePort', sessionAffinity: 'None',
        ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster', externalTrafficPolicy: 'Cluster',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      },
      status: { loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'VIP' }] } },
    };
    expect(decodeProtobufObject(encodeProtobufObject(service))).toEqual(service);
  });

  it('decodes a policy/v1 Eviction with its DeleteOptions', () => {
    const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 't' }, deleteOptions: { gracePeriodSeconds: 0, preconditions: { uid: 'u' } } };
    expect(decodeProtobufObject(encodeProtobufObject(eviction))).toEqual(eviction);
  });
});

// Owns: which address an API server advertises to the cluster (kube-apiserver's
// --advertise-address), the one the `kubernetes` Endpoints name: the flag when given; else the
// bind address when it is one specific routable address; else, when binding every interface
// (0.0.0.0 / ::), the host's first non-internal IPv4 address (IPv6 when there is none). A
// server bound to loopback only advertises nothing (Endpoints may not name loopback addresses,
// and no other host could reach it), and says so once at start.
import net from 'node:net';
import { networkInterfaces } from 'node:os';

function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1';
}

function isUnspecified(ip: string): boolean {
  return ip === '0.0.0.0' || ip === '::';
}

/** Validates an --advertise-address value; throws with the flag's name on a bad one. */
export function checkAdvertiseAddress(value: string): string {
  if (net.isIP(value) === 0) throw new Error(`--advertise-address must be an IP address, got ${JSON.stringify(value)}`);
  if (isLoopback(value) || isUnspecified(value)) throw new Error(`--advertise-address ${value} cannot be advertised: it must be a routable address, not loopback or unspecified`);
  return value;
}

/** The host's first non-internal address, IPv4 first (interfaces in the order the OS lists them). */
export function hostAddress(interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces()): string | undefined {
  const addresses = Object.values(interfaces).flatMap((entries) => entries ?? []).filter((entry) => !entry.internal && !entry.address.startsWith('fe80:'));
  return (addresses.find((entry) => entry.family === 'IPv4') ?? addresses.find((entry) => entry.family === 'IPv6'))?.address;
}

/** The advertised address, or undefined (loopback-only serving). */
export function advertiseAddress(flag: string | undefined, bindAddress: string, interfaces?: ReturnType<typeof networkInterfaces>): string | undefined {
  if (flag !== undefined) return checkAdvertiseAddress(flag);
  if (isLoopback(bindAddress)) return undefined;
  if (isUnspecified(bindAddress)) return hostAddress(interfaces);
  return bindAddress;
}

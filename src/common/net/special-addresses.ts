import ipaddr from 'ipaddr.js';

/**
 * Whether an address is outside the public unicast space: private, loopback, link-local, unique-local, shared
 * (carrier-grade NAT), documentation, benchmarking, multicast, reserved or unspecified (ipaddr.js's ranges, from
 * the IANA special-purpose registries). An IPv4 address mapped into IPv6 is judged as the IPv4 address it is. A
 * string that is not an address counts as special: the safe answer for a check that guards outbound connections.
 */
export function isSpecialUse(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() !== 'unicast';
}

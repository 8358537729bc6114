/**
 * Where a webhook may be sent (SSRF): an absolute https URL (http only where the operator allows it)
 * whose host resolves to globally routable addresses only. The rule is an allow-list, not a list of
 * known-bad ranges: an IPv4 address must be ordinary unicast (outside every block of IANA's IPv4
 * special-purpose registry: private, loopback, link-local, CGNAT, multicast, reserved, documentation,
 * benchmarking…); an IPv6 address must be global unicast (2000::/3) and outside the blocks of IANA's IPv6
 * special-purpose registry (2001::/23, 2001:db8::/32, 2002::/16 6to4, 3fff::/20), so the IPv4-compatible
 * (::a.b.c.d), site-local (fec0::/10), NAT64 and every block not yet listed are refused too. An
 * IPv4-mapped IPv6 address is judged as the IPv4 it carries. Checked when an endpoint is registered and
 * again at every attempt, where the connection goes to the address that was checked (no second DNS
 * answer can rebind it).
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { WebhookConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import { LookupTimeout, lookupHost } from './hostLookup.js';

export const MAX_URL_LENGTH = 2048;

export interface CheckedTarget {
  url: URL;
  /** The address the request connects to, and its family. */
  address: string;
  family: 4 | 6;
}

type Policy = Pick<WebhookConfig, 'allowPrivate' | 'allowHttp'>;
/** A target's check: the URL's policy, and how long its host may take to resolve (an attempt's bound). */
type TargetPolicy = Policy & Pick<WebhookConfig, 'timeoutMs'>;

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** The blocks of IANA's IPv6 special-purpose registry inside 2000::/3. */
const SPECIAL_V6 = ['2001::/23', '2001:db8::/32', '2002::/16', '3fff::/20'].map((cidr) =>
  ipaddr.parseCIDR(cidr),
);

/** Why an address may not be a webhook target, or null when it may. */
export function forbiddenAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return forbiddenAddress(v6.toIPv4Address().toString());
  const range = v6.range();
  if (range !== 'unicast') return range;
  if (!v6.match(GLOBAL_UNICAST_V6)) return 'not global unicast';
  if (SPECIAL_V6.some((cidr) => v6.match(cidr))) return 'special-purpose';
  return null;
}

/** The URL's shape: absolute, https (or allowed http), no credentials, at most MAX_URL_LENGTH. */
export function parseWebhookUrl(text: unknown, policy: Policy, parameter = 'url'): URL {
  if (typeof text !== 'string' || text.length === 0)
    throw ApiError.invalid(parameter, `${parameter} is required.`);
  if (text.length > MAX_URL_LENGTH)
    throw ApiError.invalid(parameter, `${parameter} must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw ApiError.invalid(parameter, `${parameter} must be an absolute URL.`);
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:'))
    throw ApiError.invalid(parameter, `${parameter} must be an https URL.`);
  if (url.username || url.password)
    throw ApiError.invalid(parameter, `${parameter} must not carry credentials.`);
  return url;
}

/**
 * Resolves the URL's host (hostLookup.ts: within the attempt's bound) and checks every address it has:
 * one forbidden address refuses the URL (a name that answers both a public and a private address is a
 * rebinding setup). A 400 names `parameter`.
 */
export async function checkTarget(url: URL, policy: TargetPolicy, parameter = 'url'): Promise<CheckedTarget> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookupHost(host, policy.timeoutMs);
    } catch (error) {
      if (error instanceof LookupTimeout)
        throw ApiError.invalid(parameter, `${parameter}: ${error.message}.`);
      throw ApiError.invalid(parameter, `${parameter}: the host ${host} does not resolve.`);
    }
  }
  if (addresses.length === 0)
    throw ApiError.invalid(parameter, `${parameter}: the host ${host} does not resolve.`);
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const why = forbiddenAddress(address);
      if (why !== null)
        throw ApiError.invalid(
          parameter,
          `${parameter} must resolve to globally routable addresses only: no private, loopback, link-local or special-purpose address (${host} is ${why}).`,
        );
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** Which client a remote address stands for, for the limits a server keeps per client. */

/**
 * The client an address stands for: IPv4 as it is (IPv4-mapped IPv6 included), IPv6 by its /64, the
 * smallest block one subscriber is usually given (RFC 6177), so rotating within it gains nothing.
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'address:unknown';
  if (!address.includes(':')) return `address:${address}`;
  if (address.startsWith('::ffff:') && address.includes('.')) return `address:${address.slice(7)}`;
  return `address:${ipv6Prefix64(address)}::/64`;
}

/** The first four groups of an IPv6 address, written out. */
function ipv6Prefix64(address: string): string {
  const bare = address.split('%')[0]!;
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const front = head ? head.split(':') : [];
  const back = tail === undefined ? [] : tail ? tail.split(':') : [];
  // A trailing dotted quad (`64:ff9b::1.2.3.4`) stands for two groups.
  const written = front.length + back.length + (bare.includes('.') ? 1 : 0);
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(8 - written, 0)).fill('0'), ...back];
  return groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || '0', 16).toString(16))
    .join(':');
}

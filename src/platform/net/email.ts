/** A plausible email address (one @, a dot in the domain, no spaces). */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** RFC 5321 (4.5.3.1): a local part of at most 64 octets, a path of at most 256, so an address of 254. */
const MAX_LOCAL_PART = 64;
const MAX_ADDRESS = 254;

/**
 * An address the gateway will store and mail: plausible, within the RFC 5321 lengths, no control characters,
 * and a domain without an empty label: `user@example.com.` (a trailing dot), `user@.example.com` and
 * `user@example..com` are refused (a trailing dot names the same domain, so an address written so would be
 * another text for one mailbox; the others are no domain at all).
 */
export function isEmailAddress(address: string): boolean {
  if (!EMAIL.test(address) || /\p{Cc}/u.test(address)) return false;
  const at = address.lastIndexOf('@');
  if (
    address
      .slice(at + 1)
      .split('.')
      .some((label) => label === '')
  )
    return false;
  return (
    Buffer.byteLength(address.slice(0, at)) <= MAX_LOCAL_PART && Buffer.byteLength(address) <= MAX_ADDRESS
  );
}

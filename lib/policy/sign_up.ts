// Who may sign up, by the operator's rules (lib/db/sign_up_blocks.ts), as Mastodon's BlacklistedEmailValidator,
// EmailDomainBlock, CanonicalEmailBlock and IpBlock decide it:
// - an e-mail domain block of the address's domain or of any parent domain refuses it (`allow_with_approval`
//   holds it for approval instead). Mastodon also resolves the domain's MX hosts and checks them; that lookup
//   is not made here (a sign-up would wait on DNS): a domain is matched by its name only;
// - a canonical e-mail block refuses an address whose canonical form (lower-case, dots and `+suffix` removed
//   from the local part, for every domain) hashes to it;
// - an IP rule `sign_up_block` refuses the sign-up, `sign_up_requires_approval` holds it (lib/policy/ip_blocks.ts).
import { createHash } from 'node:crypto';
import { canonicalEmailBlockOf, emailDomainBlocksOf, type EmailDomainBlock } from '../db/sign_up_blocks';
import { ipRulesFor } from './ip_blocks';

/** Mastodon's canonical form of an address: lower-cased; in the local part, dots dropped and `+` with what follows. */
export function canonicalEmail(email: string): string {
  const [local = '', ...rest] = email.trim().toLowerCase().split('@');
  const domain = rest.join('@');
  return `${local.replace(/\./g, '').split('+')[0]}@${domain}`;
}

/** The SHA-256 hex of the canonical form: what a canonical e-mail block stores. */
export const canonicalEmailHash = (email: string): string => createHash('sha256').update(canonicalEmail(email), 'utf8').digest('hex');

/** An address's domain as blocks store it (lower-case, punycode, no trailing dot), or undefined when it has none. */
export function emailDomainOf(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  const raw = at < 0 ? '' : email.slice(at + 1).trim().replace(/\.$/, '');
  if (raw === '') return undefined;
  try {
    return new URL(`http://${raw}/`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** A domain and each of its parents: `mail.spam.example`, `spam.example`, `example`. */
export const domainAndParents = (domain: string): string[] => {
  const labels = domain.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
};

export type SignUpVerdict = {
  /** The e-mail domain blocks that refuse the address (most specific first); empty when none does. */
  emailDomainBlocks: EmailDomainBlock[];
  /** A canonical e-mail block refuses the address. */
  canonicalEmailBlocked: boolean;
  /** An IP rule refuses the sign-up. */
  ipBlocked: boolean;
  /** Held for a moderator's approval (an IP rule, or an e-mail domain block allowing sign-ups with approval). */
  requiresApproval: boolean;
};

/** What the operator's rules say of a sign-up with `email` from `ip`: two reads (BatchGet, GetItem) and the kept IP rules. */
export async function signUpVerdict(email: string, ip: string): Promise<SignUpVerdict> {
  const domain = emailDomainOf(email);
  const [domainBlocks, canonical, blockedIp, approvalIp] = await Promise.all([
    domain ? emailDomainBlocksOf(domainAndParents(domain)) : Promise.resolve([]),
    canonicalEmailBlockOf(canonicalEmailHash(email)),
    ipRulesFor(ip, 'sign_up_block'),
    ipRulesFor(ip, 'sign_up_requires_approval'),
  ]);
  return {
    emailDomainBlocks: domainBlocks.filter((b) => !b.allowWithApproval),
    canonicalEmailBlocked: canonical !== undefined,
    ipBlocked: blockedIp.length > 0,
    requiresApproval: approvalIp.length > 0 || domainBlocks.some((b) => b.allowWithApproval),
  };
}

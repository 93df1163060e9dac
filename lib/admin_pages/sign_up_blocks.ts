// The sign-up rules (Mastodon's admin/email_domain_blocks, admin/ip_blocks and canonical e-mail blocks): each list
// with a form to add a rule and a remove button per rule. Every change goes through lib/moderation/sign_up_blocks.ts,
// the admin API's own checks (a bad domain, range or address is a 422 naming the field, nothing written) and its
// audit entries; what the rules do at sign-up is lib/policy/sign_up.ts and lib/policy/ip_blocks.ts.
import { z } from 'zod';
import { allIpBlocks, canonicalEmailBlocksPage, emailDomainBlocksPage, ipBlockSeverities, type IpBlockSeverity } from '../db/sign_up_blocks';
import type { Reply } from '../http/reply';
import { COMMENT_MAX } from '../moderation/block_input';
import {
  blockCanonicalEmail,
  blockEmailDomain,
  createIpRule,
  deleteIpRule,
  unblockCanonicalEmail,
  unblockEmailDomain,
  withHistories,
} from '../moderation/sign_up_blocks';
import { asPage, canonicalId } from './common';
import { adminPage, adminPath, csrfField, esc, messagePage, noticeOf, seeOther, when, type Viewer } from './layout';

/** Rules listed per page (newest first, with a link to older ones). */
export const RULES_LISTED = 100;

const NOTICES: Record<string, string> = { created: 'The rule is added.', removed: 'The rule is removed.' };

const notDone = (viewer: Viewer, text: string, back: string) => messagePage(viewer, 422, 'Not done', text, back);

const removeButton = (viewer: Viewer, action: string, id: string) => `<form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
<input type="hidden" name="id" value="${esc(id)}">
<button type="submit" name="operation" value="remove" class="secondary">Remove</button>
</form>`;

const olderLink = (path: string, items: { id: string }[]) =>
  items.length === RULES_LISTED ? `<p class="pager"><a rel="next" href="${esc(adminPath(`${path}?max_id=${items.at(-1)!.id}`))}">Older rules</a></p>` : '';

const table = (id: string, head: string[], rows: string, empty: string, count: number) =>
  count === 0
    ? `<p id="empty">${esc(empty)}</p>`
    : `<table id="${esc(id)}">
<thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}<th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;

const removeSchema = z.object({ operation: z.literal('remove'), id: z.string().max(30) });

/** A form's remove: the rule's id checked, the removal done, back with the notice. */
async function removal(viewer: Viewer, input: Record<string, unknown>, back: string, remove: (id: string) => Promise<void>): Promise<Reply | undefined> {
  if (input.operation !== 'remove') return undefined;
  const form = removeSchema.safeParse(input);
  const id = form.success ? canonicalId(form.data.id) : undefined;
  if (!id) return notDone(viewer, 'Choose a rule to remove.', back);
  return asPage(viewer, back, async () => {
    await remove(id);
    return seeOther(back, 'removed');
  });
}

// ---- e-mail domain blocks ----

/** GET /admin/email_domain_blocks */
export async function emailDomainBlocksPageHtml(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const maxId = canonicalId(input.max_id);
  const blocks = await emailDomainBlocksPage({ limit: RULES_LISTED, ...(maxId ? { max_id: maxId } : {}) });
  const histories = await withHistories(blocks);
  const action = adminPath('/email_domain_blocks');
  const rows = histories
    .map(([b, days]) => `<tr id="email-domain-block-${esc(b.id)}">
<td>${esc(b.domain)}</td>
<td>${b.allowWithApproval ? 'Held for approval' : 'Refused'}</td>
<td>${days.reduce((sum, d) => sum + d.uses, 0)}</td>
<td>${when(b.createdAt)}</td>
<td>${removeButton(viewer, action, b.id)}</td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
<p class="muted">Sign-ups with an e-mail address at these domains (and their subdomains) are refused, or held for approval.</p>
${table('email-domain-blocks', ['Domain', 'Sign-ups', 'Attempts (7 days)', 'Since'], rows, 'No e-mail domain is blocked.', blocks.length)}
${olderLink('/email_domain_blocks', blocks)}
<h2>Block an e-mail domain</h2>
<form method="post" action="${esc(action)}">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="add">
<label for="domain">Domain</label>
<input type="text" id="domain" name="domain" required maxlength="253">
<label><input type="checkbox" name="allow_with_approval" value="1"> Hold sign-ups for approval instead of refusing them</label>
<div class="actions"><button type="submit" class="primary">Block</button></div>
</form>`;
  return adminPage(viewer, 'E-mail domain blocks', body);
}

const emailDomainSubmitted = z.object({ operation: z.literal('add'), domain: z.string().max(300), allow_with_approval: z.string().max(10).optional() });

/** POST /admin/email_domain_blocks: add a block, or remove one by id. */
export async function submitEmailDomainBlock(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath('/email_domain_blocks');
  const removed = await removal(viewer, input, back, (id) => unblockEmailDomain(viewer.account, id));
  if (removed) return removed;
  const form = emailDomainSubmitted.safeParse(input);
  if (!form.success) return notDone(viewer, 'Give a domain to block.', back);
  return asPage(viewer, back, async () => {
    const approval = form.data.allow_with_approval;
    await blockEmailDomain(viewer.account, { domain: form.data.domain, allow_with_approval: approval !== undefined && approval !== '' && approval !== '0' });
    return seeOther(back, 'created');
  });
}

// ---- IP blocks ----

const IP_SEVERITY_LABELS: Record<IpBlockSeverity, string> = {
  sign_up_requires_approval: 'Sign-ups held for approval',
  sign_up_block: 'Sign-ups refused',
  no_access: 'Every request refused',
};

/** The expiries offered, in seconds (Mastodon's choices); '' for never. */
const EXPIRIES: [string, string][] = [
  ['', 'Never'],
  [String(86_400), '1 day'],
  [String(14 * 86_400), '2 weeks'],
  [String(30 * 86_400), '1 month'],
  [String(182 * 86_400), '6 months'],
  [String(365 * 86_400), '1 year'],
  [String(3 * 365 * 86_400), '3 years'],
];

/** GET /admin/ip_blocks */
export async function ipBlocksPageHtml(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const blocks = (await allIpBlocks(true)).sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
  const action = adminPath('/ip_blocks');
  const now = Date.now();
  const rows = blocks
    .map((b) => `<tr id="ip-block-${esc(b.id)}">
<td>${esc(b.cidr)}</td>
<td>${esc(IP_SEVERITY_LABELS[b.severity])}</td>
<td class="comment">${esc(b.comment)}</td>
<td>${b.expiresAt ? `${when(b.expiresAt)}${Date.parse(b.expiresAt) <= now ? ' <span class="muted">(expired)</span>' : ''}` : 'never'}</td>
<td>${when(b.createdAt)}</td>
<td>${removeButton(viewer, action, b.id)}</td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
${table('ip-blocks', ['Address or range', 'Rule', 'Comment', 'Expires', 'Since'], rows, 'No IP rule.', blocks.length)}
<h2>Add an IP rule</h2>
<form method="post" action="${esc(action)}">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="add">
<label for="ip">Address or range (CIDR)</label>
<input type="text" id="ip" name="ip" required maxlength="64" placeholder="192.0.2.0/24">
<label for="severity">Rule</label>
<select id="severity" name="severity">
${ipBlockSeverities.map((s) => `<option value="${esc(s)}">${esc(IP_SEVERITY_LABELS[s])}</option>`).join('\n')}
</select>
<label for="expires_in">Expires</label>
<select id="expires_in" name="expires_in">
${EXPIRIES.map(([value, label]) => `<option value="${esc(value)}">${esc(label)}</option>`).join('\n')}
</select>
<label for="comment">Comment</label>
<textarea id="comment" name="comment" rows="2" maxlength="${COMMENT_MAX}"></textarea>
<div class="actions"><button type="submit" class="primary">Add</button></div>
</form>`;
  return adminPage(viewer, 'IP rules', body);
}

const ipSubmitted = z.object({
  operation: z.literal('add'),
  ip: z.string().max(100),
  severity: z.string().max(50),
  expires_in: z.string().max(20).optional(),
  comment: z.string().max(10_000).optional(),
});

/** POST /admin/ip_blocks: add a rule, or remove one by id. */
export async function submitIpBlock(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath('/ip_blocks');
  const removed = await removal(viewer, input, back, (id) => deleteIpRule(viewer.account, id));
  if (removed) return removed;
  const form = ipSubmitted.safeParse(input);
  if (!form.success) return notDone(viewer, 'Give an address or range and a rule.', back);
  const expires = form.data.expires_in?.trim() ?? '';
  if (expires !== '' && !/^\d{1,12}$/.test(expires)) return notDone(viewer, 'Validation failed: Expires in is invalid', back);
  return asPage(viewer, back, async () => {
    await createIpRule(viewer.account, {
      ip: form.data.ip,
      severity: form.data.severity,
      comment: form.data.comment ?? '',
      expires_in: expires === '' ? null : Number(expires),
    });
    return seeOther(back, 'created');
  });
}

// ---- canonical e-mail blocks ----

/** GET /admin/canonical_email_blocks */
export async function canonicalEmailBlocksPageHtml(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const maxId = canonicalId(input.max_id);
  const blocks = await canonicalEmailBlocksPage({ limit: RULES_LISTED, ...(maxId ? { max_id: maxId } : {}) });
  const action = adminPath('/canonical_email_blocks');
  const rows = blocks
    .map((b) => `<tr id="canonical-email-block-${esc(b.id)}">
<td><code>${esc(b.canonicalEmailHash)}</code></td>
<td>${when(b.createdAt)}</td>
<td>${removeButton(viewer, action, b.id)}</td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
<p class="muted">Sign-ups with these addresses are refused, whatever dots or +suffixes they are written with. Only a hash of each address is kept.</p>
${table('canonical-email-blocks', ['Address hash (SHA-256 of the canonical address)', 'Since'], rows, 'No e-mail address is blocked.', blocks.length)}
${olderLink('/canonical_email_blocks', blocks)}
<h2>Block an e-mail address</h2>
<form method="post" action="${esc(action)}">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="add">
<label for="email">E-mail address</label>
<input type="text" id="email" name="email" required maxlength="320">
<div class="actions"><button type="submit" class="primary">Block</button></div>
</form>`;
  return adminPage(viewer, 'E-mail address blocks', body);
}

const canonicalSubmitted = z.object({ operation: z.literal('add'), email: z.string().max(400) });

/** POST /admin/canonical_email_blocks: block an address, or remove a block by id. */
export async function submitCanonicalEmailBlock(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath('/canonical_email_blocks');
  const removed = await removal(viewer, input, back, (id) => unblockCanonicalEmail(viewer.account, id));
  if (removed) return removed;
  const form = canonicalSubmitted.safeParse(input);
  if (!form.success) return notDone(viewer, 'Give an e-mail address to block.', back);
  // Only by address: a page never asks for a hash. An empty address is the field's own 422.
  if (form.data.email.trim() === '') return notDone(viewer, "Validation failed: Email can't be blank", back);
  return asPage(viewer, back, async () => {
    await blockCanonicalEmail(viewer.account, { email: form.data.email });
    return seeOther(back, 'created');
  });
}

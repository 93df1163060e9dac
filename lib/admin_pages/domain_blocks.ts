// The instance's domain blocks (Mastodon's admin/domain_blocks): the list, a form to add or change a block
// (silence or suspend, with its comments), and a remove button per block, through the operator's commands
// (lib/admin/federation_commands.ts: the same checks, the same purge of a suspended domain). Recorded in the
// audit log as Mastodon records DomainBlock changes.
import { z } from 'zod';
import { blockableDomainName, blockDomainCommand, unblockDomainCommand, COMMENT_MAX } from '../admin/federation_commands';
import { AdminError } from '../admin/commands';
import { allInstanceDomainBlocks, domainBlockSeverities, instanceDomainBlockOf } from '../db/instance_domain_blocks';
import type { Reply } from '../http/reply';
import { recordAction } from '../moderation/audit';
import { adminPage, adminPath, csrfField, esc, messagePage, noticeOf, seeOther, when, type Viewer } from './layout';

const NOTICES: Record<string, string> = {
  created: 'The domain is blocked.',
  updated: 'The domain\'s block is changed.',
  removed: 'The domain is no longer blocked.',
};

const domainTarget = (domain: string) => ({ type: 'DomainBlock', id: domain, human: domain });

/** GET /admin/domain_blocks */
export async function domainBlocksPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const blocks = await allInstanceDomainBlocks();
  const action = adminPath('/domain_blocks');
  const rows = blocks
    .map((b) => `<tr>
<td>${esc(b.domain)}</td>
<td>${esc(b.severity)}</td>
<td class="comment">${esc(b.publicComment)}</td>
<td class="comment">${esc(b.privateComment)}</td>
<td>${when(b.createdAt)}</td>
<td><form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
<input type="hidden" name="domain" value="${esc(b.domain)}">
<button type="submit" name="operation" value="remove" class="secondary">Remove</button>
</form></td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
${blocks.length === 0 ? '<p id="empty">No domain is blocked.</p>' : `<table id="domain-blocks">
<thead><tr><th>Domain</th><th>Severity</th><th>Public comment</th><th>Private comment</th><th>Since</th><th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}
<h2>Block a domain</h2>
<form method="post" action="${esc(action)}">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="add">
<label for="domain">Domain</label>
<input type="text" id="domain" name="domain" required maxlength="253">
<label for="severity">Severity</label>
<select id="severity" name="severity">
${domainBlockSeverities.map((s) => `<option value="${esc(s)}">${esc(s === 'silence' ? 'Limit' : 'Suspend')}</option>`).join('\n')}
</select>
<p class="muted">Suspending removes every account, status and follow stored from the domain.</p>
<label for="public_comment">Public comment</label>
<textarea id="public_comment" name="public_comment" rows="2" maxlength="${COMMENT_MAX}"></textarea>
<label for="private_comment">Private comment</label>
<textarea id="private_comment" name="private_comment" rows="2" maxlength="${COMMENT_MAX}"></textarea>
<div class="actions"><button type="submit" class="primary">Block</button></div>
</form>`;
  return adminPage(viewer, 'Domain blocks', body);
}

const submitted = z.object({
  operation: z.enum(['add', 'remove']),
  domain: z.string().max(300),
  severity: z.string().max(50).optional(),
  public_comment: z.string().max(10_000).optional(),
  private_comment: z.string().max(10_000).optional(),
});

/** POST /admin/domain_blocks: add (or change) a block, or remove one. */
export async function submitDomainBlock(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath('/domain_blocks');
  const form = submitted.safeParse(input);
  if (!form.success) return messagePage(viewer, 422, 'Not done', 'Give a domain to block or remove.', back);
  try {
    const domain = blockableDomainName(form.data.domain);
    if (form.data.operation === 'remove') {
      await unblockDomainCommand(domain);
      await recordAction(viewer.account, 'destroy', domainTarget(domain));
      return seeOther(back, 'removed');
    }
    const existing = await instanceDomainBlockOf(domain);
    await blockDomainCommand(domain, { severity: form.data.severity, publicComment: form.data.public_comment, privateComment: form.data.private_comment });
    await recordAction(viewer.account, existing ? 'update' : 'create', domainTarget(domain));
    return seeOther(back, existing ? 'updated' : 'created');
  } catch (err) {
    if (err instanceof AdminError) return messagePage(viewer, 422, 'Not done', err.message, back);
    throw err;
  }
}

// The instance's domain blocks and allows (Mastodon's admin/domain_blocks and admin/domain_allows): the lists, a
// form to add a block (severity silence, suspend or noop, reject media, reject reports, comments, obfuscate) or to
// change the block of a domain already blocked, a remove button per block; the allow list with its form and remove
// buttons, saying whether limited federation is on. Every change goes through lib/moderation/domain_blocks.ts, the
// admin API's own domain logic (its checks, the purge of a suspended domain by the sweeper, the audit log).
import { z } from 'zod';
import { allDomainAllows } from '../db/domain_allows';
import { recentInstanceSettings } from '../db/instance';
import { allInstanceDomainBlocks, domainBlockSeverities, instanceDomainBlockOf, type DomainBlockSeverity } from '../db/instance_domain_blocks';
import type { Reply } from '../http/reply';
import { COMMENT_MAX, domainField } from '../moderation/block_input';
import { allowDomain, createDomainBlock, disallowDomain, liftDomainBlock, updateDomainBlock } from '../moderation/domain_blocks';
import { asPage, canonicalId } from './common';
import { adminPage, adminPath, csrfField, esc, messagePage, noticeOf, seeOther, when, type Viewer } from './layout';

const NOTICES: Record<string, string> = {
  created: 'The domain is blocked.',
  updated: 'The domain\'s block is changed.',
  removed: 'The domain is no longer blocked.',
};

const SEVERITY_LABELS: Record<DomainBlockSeverity, string> = { silence: 'Limit', suspend: 'Suspend', noop: 'None' };

const yes = (value: boolean) => (value ? 'yes' : '');

/** GET /admin/domain_blocks */
export async function domainBlocksPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const blocks = await allInstanceDomainBlocks(true);
  const action = adminPath('/domain_blocks');
  const rows = blocks
    .map((b) => `<tr id="domain-block-${esc(b.id)}">
<td>${esc(b.domain)}</td>
<td>${esc(SEVERITY_LABELS[b.severity])}${b.purgePending ? ' <span class="muted">(removing stored accounts)</span>' : ''}</td>
<td>${yes(b.rejectMedia)}</td>
<td>${yes(b.rejectReports)}</td>
<td>${yes(b.obfuscate)}</td>
<td class="comment">${esc(b.publicComment)}</td>
<td class="comment">${esc(b.privateComment)}</td>
<td>${when(b.createdAt)}</td>
<td><form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
<input type="hidden" name="id" value="${esc(b.id)}">
<button type="submit" name="operation" value="remove" class="secondary">Remove</button>
</form></td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
${blocks.length === 0 ? '<p id="empty">No domain is blocked.</p>' : `<table id="domain-blocks">
<thead><tr><th>Domain</th><th>Severity</th><th>Reject media</th><th>Reject reports</th><th>Obfuscated</th><th>Public comment</th><th>Private comment</th><th>Since</th><th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}
<h2>Block a domain (or change its block)</h2>
<form method="post" action="${esc(action)}">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="add">
<label for="domain">Domain</label>
<input type="text" id="domain" name="domain" required maxlength="253">
<label for="severity">Severity</label>
<select id="severity" name="severity">
${domainBlockSeverities.map((s) => `<option value="${esc(s)}">${esc(SEVERITY_LABELS[s])}</option>`).join('\n')}
</select>
<p class="muted">Limit keeps the domain's posts off public timelines; Suspend removes every account, status and follow stored from it; None only applies the options below.</p>
<label><input type="checkbox" name="reject_media" value="1"> Reject media files</label>
<label><input type="checkbox" name="reject_reports" value="1"> Reject reports</label>
<label><input type="checkbox" name="obfuscate" value="1"> Obfuscate the domain in the public list</label>
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
  id: z.string().max(30).optional(),
  domain: z.string().max(300).optional(),
  severity: z.string().max(50).optional(),
  reject_media: z.string().max(10).optional(),
  reject_reports: z.string().max(10).optional(),
  obfuscate: z.string().max(10).optional(),
  public_comment: z.string().max(10_000).optional(),
  private_comment: z.string().max(10_000).optional(),
});

const notDone = (viewer: Viewer, text: string, back: string) => messagePage(viewer, 422, 'Not done', text, back);

/** A checkbox: sent (with any value) when ticked, absent when not. */
const ticked = (value: string | undefined) => value !== undefined && value !== '' && value !== '0';

/** POST /admin/domain_blocks: add a block (or change the block of a domain already blocked), or remove one by id. */
export async function submitDomainBlock(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath('/domain_blocks');
  const form = submitted.safeParse(input);
  if (!form.success) return notDone(viewer, 'Give a domain to block, or choose a block to remove.', back);
  const f = form.data;
  return asPage(viewer, back, async () => {
    if (f.operation === 'remove') {
      const id = canonicalId(f.id);
      if (!id) return notDone(viewer, 'Choose a block to remove.', back);
      await liftDomainBlock(viewer.account, id);
      return seeOther(back, 'removed');
    }
    const changes = {
      severity: f.severity,
      reject_media: ticked(f.reject_media),
      reject_reports: ticked(f.reject_reports),
      obfuscate: ticked(f.obfuscate),
      public_comment: f.public_comment ?? '',
      private_comment: f.private_comment ?? '',
    };
    const existing = await instanceDomainBlockOf(domainField(f.domain));
    if (existing) {
      await updateDomainBlock(viewer.account, existing.id, changes);
      return seeOther(back, 'updated');
    }
    await createDomainBlock(viewer.account, { domain: f.domain, ...changes }, (b) => b.domain);
    return seeOther(back, 'created');
  });
}

// ---- domain allows ----

const ALLOW_NOTICES: Record<string, string> = {
  created: 'The domain is allowed.',
  removed: 'The domain is no longer allowed.',
};

/** GET /admin/domain_allows */
export async function domainAllowsPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const [allows, settings] = await Promise.all([allDomainAllows(true), recentInstanceSettings()]);
  const action = adminPath('/domain_allows');
  const rows = allows
    .map((a) => `<tr id="domain-allow-${esc(a.id)}">
<td>${esc(a.domain)}</td>
<td>${when(a.createdAt)}</td>
<td><form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
<input type="hidden" name="id" value="${esc(a.id)}">
<button type="submit" name="operation" value="remove" class="secondary">Remove</button>
</form></td>
</tr>`)
    .join('\n');
  const mode = settings.limitedFederation
    ? '<p id="mode"><strong>Limited federation is on:</strong> only the domains below federate with this server.</p>'
    : '<p id="mode" class="muted">Limited federation is off: every domain not blocked federates; this list applies once the operator turns it on (<code>npm run admin -- settings set limited-federation on</code>).</p>';
  const body = `${noticeOf(ALLOW_NOTICES, input)}
${mode}
${allows.length === 0 ? '<p id="empty">No domain is allowed.</p>' : `<table id="domain-allows">
<thead><tr><th>Domain</th><th>Since</th><th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}
<h2>Allow a domain</h2>
<form method="post" action="${esc(action)}">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="add">
<label for="domain">Domain</label>
<input type="text" id="domain" name="domain" required maxlength="253">
<div class="actions"><button type="submit" class="primary">Allow</button></div>
</form>`;
  return adminPage(viewer, 'Domain allows', body);
}

const allowSubmitted = z.object({ operation: z.enum(['add', 'remove']), id: z.string().max(30).optional(), domain: z.string().max(300).optional() });

/** POST /admin/domain_allows: allow a domain, or remove an allow by id. */
export async function submitDomainAllow(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath('/domain_allows');
  const form = allowSubmitted.safeParse(input);
  if (!form.success) return notDone(viewer, 'Give a domain to allow, or choose an allow to remove.', back);
  return asPage(viewer, back, async () => {
    if (form.data.operation === 'remove') {
      const id = canonicalId(form.data.id);
      if (!id) return notDone(viewer, 'Choose an allow to remove.', back);
      await disallowDomain(viewer.account, id);
      return seeOther(back, 'removed');
    }
    await allowDomain(viewer.account, { domain: form.data.domain });
    return seeOther(back, 'created');
  });
}

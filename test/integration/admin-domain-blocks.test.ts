// The admin API's domain blocks (/api/v1/admin/domain_blocks, Mastodon 4.3) on the operator's instance-wide
// blocks: every route with its bad inputs and permissions, the audit log, the block that already covers a domain,
// Link paging, and what a block does: the public list (obfuscated, digest, public comment, noop left out),
// reject_reports dropping a Flag, reject_media leaving a file uncopied, a suspension refusing the inbox at once
// and its stored accounts purged by the sweeper, and the CLI's blocks seen by the API.
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as createBlock } from '../../functions/admin_domain_blocks/create';
import { handler as deleteBlock } from '../../functions/admin_domain_blocks/delete';
import { handler as listBlocks } from '../../functions/admin_domain_blocks/index';
import { handler as showBlock } from '../../functions/admin_domain_blocks/show';
import { handler as updateBlock } from '../../functions/admin_domain_blocks/update';
import { handler as inboxHandler } from '../../functions/activitypub/inbox';
import { handler as publicDomainBlocks } from '../../functions/instance/domain_blocks';
import { handler as remoteMediaWorker } from '../../functions/workers/remote_media';
import { blockDomainCommand } from '../../lib/admin/federation_commands';
import { accountById, type Account } from '../../lib/db/accounts';
import { auditLogPage } from '../../lib/db/audit_log';
import { updateInstanceSettings } from '../../lib/db/instance';
import { mediaById } from '../../lib/db/media';
import { reportsPage } from '../../lib/db/reports';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { statusById } from '../../lib/db/statuses';
import { signRequest } from '../../lib/federation/signatures';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { processActivity } from '../../lib/inbox';
import { flag } from '../../lib/inbox/flag';
import { continueDomainPurges } from '../../lib/moderation/domain_blocks';
import { forgetInstanceDomainBlocks } from '../../lib/policy/instance_domains';
import { registerInlineWorker } from '../../lib/queue';
import type { InboxMessage } from '../../lib/queue/messages';
import { aRemoteAccount, aUser, type RemoteAccountFixture, type UserFixture } from '../support/factories';
import { call, type Call } from '../support/http';
import { remoteServer } from '../support/remote-server';
import { aStaffUser } from '../support/staff';

const queuedInbox: InboxMessage[] = [];
registerInlineWorker('inbox', async (event: SQSEvent) => {
  for (const r of event.Records) queuedInbox.push(JSON.parse(r.body) as InboxMessage);
  return { batchItemFailures: [] };
});
const ignore = async () => ({ batchItemFailures: [] });
registerInlineWorker('fanout', ignore);
registerInlineWorker('notify', ignore);
registerInlineWorker('deliver', ignore);
registerInlineWorker('remoteMedia', (event: SQSEvent) => remoteMediaWorker(event));

let admin: UserFixture;
let moderator: UserFixture;
let user: UserFixture;
beforeAll(async () => {
  [admin, moderator, user] = await Promise.all([aStaffUser('admin'), aStaffUser('moderator'), aStaffUser(null)]);
});
beforeEach(() => {
  queuedInbox.length = 0;
  forgetInstanceDomainBlocks();
});

const aDomain = (what: string) => `${what}-${randomUUID().slice(0, 8)}.example`;
const PATH = '/api/v1/admin/domain_blocks';
const create = (who: UserFixture, form: Record<string, string>) => call(createBlock, { method: 'POST', path: PATH, form, token: who.token });
const show = (who: UserFixture, id: string) => call(showBlock, { path: `${PATH}/${id}`, pathParameters: { id }, token: who.token });
const update = (who: UserFixture, id: string, form: Record<string, string>) =>
  call(updateBlock, { method: 'PUT', path: `${PATH}/${id}`, pathParameters: { id }, form, token: who.token });
const remove = (who: UserFixture, id: string) => call(deleteBlock, { method: 'DELETE', path: `${PATH}/${id}`, pathParameters: { id }, token: who.token });
const list = (who: UserFixture, query: Record<string, string> = {}) => call(listBlocks, { path: PATH, query, token: who.token });

describe('the admin domain blocks routes', () => {
  it('creates, shows, lists, updates and removes a block as Admin::DomainBlock, each change in the audit log', async () => {
    const domain = aDomain('spam');
    const created = await create(admin, { domain: domain.toUpperCase(), severity: 'silence', reject_media: 'true', private_comment: 'seen in reports', public_comment: 'spam' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      domain,
      created_at: expect.any(String),
      severity: 'silence',
      reject_media: true,
      reject_reports: false,
      private_comment: 'seen in reports',
      public_comment: 'spam',
      obfuscate: false,
    });
    const id = created.body.id as string;
    expect((await show(admin, id)).body).toEqual(created.body);
    expect((await list(admin)).body).toContainEqual(created.body);

    const updated = await update(admin, id, { severity: 'noop', reject_reports: 'true', obfuscate: '1' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, domain, severity: 'noop', reject_media: true, reject_reports: true, obfuscate: true, public_comment: 'spam' });

    const removed = await remove(admin, id);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect((await show(admin, id)).status).toBe(404);

    const log = (await auditLogPage({ limit: 200 })).filter((e) => e.targetType === 'DomainBlock' && e.targetId === id);
    expect(log.map((e) => e.action).sort()).toEqual(['create', 'destroy', 'update']);
    expect(log.every((e) => e.accountId === admin.account.id && e.humanIdentifier === domain)).toBe(true);
  });

  it('defaults to silence without media or report rejection, and names no comment as null', async () => {
    const res = await create(admin, { domain: aDomain('plain') });
    expect(res.body).toMatchObject({ severity: 'silence', reject_media: false, reject_reports: false, private_comment: null, public_comment: null, obfuscate: false });
  });

  it('answers 422 with the block in force for a domain already blocked, or one of its subdomains; nothing is stored', async () => {
    const domain = aDomain('parent');
    const first = await create(admin, { domain, severity: 'suspend' });
    for (const again of [domain, `sub.${domain}`]) {
      const res = await create(admin, { domain: again, severity: 'silence' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: `You have already imposed stricter limits on ${domain}.`, existing_domain_block: first.body });
    }
    expect((await list(admin)).body.filter((b: { domain: string }) => b.domain.endsWith(domain))).toHaveLength(1);
  });

  it('answers 422 naming the field for a blank or invalid domain, a bad severity or a comment too long; 404 for an unknown id', async () => {
    expect(await create(admin, {})).toMatchObject({ status: 422, body: { error: "Validation failed: Domain can't be blank" } });
    expect(await create(admin, { domain: 'not a domain' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Domain is not a valid domain name' } });
    expect(await create(admin, { domain: 'social.example' })).toMatchObject({ status: 422, body: { error: expect.stringContaining('Domain') } });
    expect(await create(admin, { domain: aDomain('x'), severity: 'ban' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Severity is not included in the list' } });
    expect(await create(admin, { domain: aDomain('x'), public_comment: 'x'.repeat(1001) })).toMatchObject({ status: 422, body: { error: expect.stringContaining('Public comment') } });
    expect(await create(admin, { domain: aDomain('x'), reject_media: 'maybe' })).toMatchObject({ status: 422, body: { error: expect.stringContaining('reject_media') } });
    const made = await create(admin, { domain: aDomain('kept') });
    expect(await update(admin, made.body.id, { severity: 'everything' })).toMatchObject({ status: 422, body: { error: 'Validation failed: Severity is not included in the list' } });
    expect((await show(admin, made.body.id)).body.severity).toBe('silence');
    for (const res of [await show(admin, '123'), await update(admin, '123', { severity: 'noop' }), await remove(admin, '123'), await show(admin, 'abc')]) {
      expect(res).toMatchObject({ status: 404, body: { error: 'Record not found' } });
    }
  });

  it('is 403 for a moderator (no manage_federation), a user without a role, and a token without the admin scope', async () => {
    const domain = aDomain('guarded');
    const made = await create(admin, { domain });
    for (const who of [moderator, user]) {
      for (const res of [await list(who), await show(who, made.body.id), await create(who, { domain: aDomain('no') }), await update(who, made.body.id, { severity: 'suspend' }), await remove(who, made.body.id)]) {
        expect(res).toMatchObject({ status: 403, body: { error: 'This action is not allowed' } });
      }
    }
    const plainToken = await aStaffUser('admin', ['read', 'write']);
    expect((await list(plainToken)).status).toBe(403);
    expect((await create(plainToken, { domain: aDomain('no') })).status).toBe(403);
    const readOnly = await aStaffUser('admin', ['admin:read:domain_blocks']);
    expect((await list(readOnly)).status).toBe(200);
    expect((await create(readOnly, { domain: aDomain('no') })).status).toBe(403);
    expect((await show(admin, made.body.id)).body.severity).toBe('silence');
  });

  it('pages newest first with Link headers (limit, max_id, min_id)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(admin, { domain: aDomain(`page${i}`) })).body.id);
    const first = await list(admin, { limit: '2' });
    expect(first.body.map((b: { id: string }) => b.id)).toEqual([ids[2], ids[1]]);
    expect(first.headers.link).toContain(`max_id=${ids[1]}`);
    expect(first.headers.link).toContain('limit=2');
    const next = await list(admin, { limit: '2', max_id: ids[1]! });
    expect(next.body[0].id).toBe(ids[0]);
    const prev = await list(admin, { limit: '2', min_id: ids[0]! });
    expect(prev.body.map((b: { id: string }) => b.id)).toEqual([ids[2], ids[1]]);
  });

  it('shows a block made with the CLI (before blocks had ids) under a stable id, and the CLI still changes it', async () => {
    const domain = aDomain('cli');
    await blockDomainCommand(domain, { severity: 'silence', publicComment: 'from the shell' });
    const listed = (await list(admin)).body.find((b: { domain: string }) => b.domain === domain);
    expect(listed).toMatchObject({ domain, severity: 'silence', public_comment: 'from the shell' });
    expect((await show(admin, listed.id)).body).toEqual(listed);
    await blockDomainCommand(domain, { severity: 'suspend' });
    expect((await show(admin, listed.id)).body.severity).toBe('suspend');
  });
});

describe('GET /api/v1/instance/domain_blocks', () => {
  it('follows the admin blocks: obfuscated domains starred out with the real digest, the public comment, noop blocks left out', async () => {
    await updateInstanceSettings({ domainBlocksPublic: true });
    const hidden = `${randomUUID().slice(0, 8)}-secretive.example`;
    const open = aDomain('open');
    const noop = aDomain('noop');
    await create(admin, { domain: hidden, severity: 'suspend', obfuscate: 'true', public_comment: 'harassment', private_comment: 'internal' });
    await create(admin, { domain: open, severity: 'silence' });
    await create(admin, { domain: noop, severity: 'noop', reject_media: 'true' });
    const res = await call(publicDomainBlocks, { path: '/api/v1/instance/domain_blocks' });
    expect(res.status).toBe(200);
    const { createHash } = await import('node:crypto');
    const digest = (d: string) => createHash('sha256').update(d).digest('hex');
    const byDigest = new Map((res.body as { digest: string; domain: string; severity: string; comment: string | null }[]).map((b) => [b.digest, b]));
    const shown = byDigest.get(digest(hidden))!;
    expect(shown.severity).toBe('suspend');
    expect(shown.comment).toBe('harassment');
    expect(shown.domain).not.toBe(hidden);
    expect(shown.domain).toHaveLength(hidden.length);
    expect(shown.domain).toMatch(/\*/);
    expect(shown.domain.startsWith(hidden.slice(0, Math.floor(hidden.length / 4) + 1))).toBe(true);
    expect(shown.domain.endsWith('.example'.slice(-Math.floor(hidden.length / 4)))).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain('internal');
    expect(byDigest.get(digest(open))).toEqual({ domain: open, digest: digest(open), severity: 'silence', comment: null });
    expect(byDigest.has(digest(noop))).toBe(false);
  });
});

// ---- what a block does ----

const signedInboxPost = (remote: RemoteAccountFixture, activity: Record<string, unknown>): Call => {
  const body = JSON.stringify(activity);
  const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', headers: { 'content-type': 'application/activity+json' }, body }, remote.signer);
  return { method: 'POST', path: '/inbox', headers, body: { data: body, contentType: 'application/activity+json' } };
};
const aNote = (author: Account) => {
  const id = `${author.uri}/statuses/${randomUUID()}`;
  return { '@context': 'https://www.w3.org/ns/activitystreams', id: `${id}/activity`, type: 'Create', actor: author.uri, object: { id, type: 'Note', attributedTo: author.uri, to: [AS_PUBLIC], content: '<p>hi</p>', published: new Date().toISOString() } };
};

describe('what an admin domain block does', () => {
  it('reject_reports: a Flag from the domain is dropped (no report stored), one from an unblocked domain is stored', async () => {
    const local = await aUser();
    const blocked = aDomain('noisy');
    const fine = aDomain('fine');
    await create(admin, { domain: blocked, severity: 'noop', reject_reports: 'true' });
    const [bad, good] = await Promise.all([aRemoteAccount({ domain: blocked, keyless: true }), aRemoteAccount({ domain: fine, keyless: true })]);
    const flagOf = (actor: Account) => {
      const body = { '@context': 'https://www.w3.org/ns/activitystreams', id: `https://${actor.domain}/${randomUUID()}`, type: 'Flag', actor: actor.uri, object: [apUrls.actor(local.account.username)], content: 'bad' };
      return { id: body.id, type: 'Flag', actor: actor as Account & { uri: string }, activity: body };
    };
    expect(await flag(flagOf(bad.account))).toBe('ignored');
    expect(await flag(flagOf(good.account))).toBe('applied');
    const about = (await reportsPage({ limit: 200 })).filter((r) => r.targetAccountId === local.account.id);
    expect(about.map((r) => r.accountId)).toEqual([good.account.id]);
  });

  it('reject_media: a received attachment of the domain is not fetched nor copied; with the flag lifted it is', async () => {
    const server = await remoteServer();
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
    try {
      const { default: sharp } = await import('sharp');
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
      server.route('GET', '/files/photo.png', { headers: { 'content-type': 'image/png' }, body: png });
      const username = `m${randomUUID().slice(0, 8)}`;
      const { account } = await aRemoteAccount({ domain: server.host, username, uri: `${server.origin}/users/${username}`, keyless: true });
      const block = await create(admin, { domain: server.host, severity: 'noop', reject_media: 'true' });
      expect(block.status).toBe(200);

      const receiveWithPhoto = async () => {
        const activity = aNote(account);
        Object.assign(activity.object, { attachment: [{ type: 'Document', mediaType: 'image/png', url: `${server.origin}/files/photo.png` }] });
        await processActivity({ activity, signer: account.uri!, receivedAt: new Date().toISOString() });
        const status = await statusById((await remoteStatusIdByUri(activity.object.id))!, true);
        return mediaById(status!.mediaIds[0]!);
      };
      const rejected = await receiveWithPhoto();
      expect(rejected?.remoteUrl).toBe(`${server.origin}/files/photo.png`);
      expect(rejected?.fileKey ?? null).toBeNull();
      expect(server.received.filter((r) => r.path === '/files/photo.png')).toHaveLength(0);

      expect((await update(admin, block.body.id, { reject_media: 'false' })).body.reject_media).toBe(false);
      const copied = await receiveWithPhoto();
      expect(copied?.fileKey).toEqual(expect.any(String));
      expect(server.received.filter((r) => r.path === '/files/photo.png')).toHaveLength(1);
    } finally {
      process.env.STAGE = 'test';
      delete process.env.FEDERATION_ALLOW_PRIVATE;
      await server.close();
    }
  });

  it('suspend: the inbox refuses the domain at once (403), and the sweeper purges its stored accounts without the request waiting', async () => {
    const domain = aDomain('suspended');
    const [bad, good] = await Promise.all([aRemoteAccount({ domain }), aRemoteAccount({ domain: aDomain('fine') })]);
    const res = await create(admin, { domain, severity: 'suspend' });
    expect(res.status).toBe(200);
    // Answered before anything stored from the domain was removed.
    expect(await accountById(bad.account.id)).toBeDefined();

    const refused = await call(inboxHandler, signedInboxPost(bad, aNote(bad.account)));
    expect(refused.status).toBe(403);
    expect(queuedInbox).toHaveLength(0);
    expect((await call(inboxHandler, signedInboxPost(good, aNote(good.account)))).status).toBe(202);

    expect(await continueDomainPurges()).toBeGreaterThanOrEqual(1);
    expect(await accountById(bad.account.id)).toBeUndefined();
    expect(await accountById(good.account.id)).toBeDefined();
    // Done: the next sweep has nothing left of it.
    await continueDomainPurges();
    expect((await list(admin)).body.find((b: { id: string }) => b.id === res.body.id)).toMatchObject({ severity: 'suspend' });
  });
});

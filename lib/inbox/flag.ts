// Flag received from a remote server (Mastodon's ActivityPub::Activity::Flag):
// a report about some of our accounts and their statuses, stored for our
// moderators by lib/reports/receive.ts. The objects are read as our own URLs
// only: an account named must be one of ours (and visible), a status ours and
// of an account named (others are dropped). A Flag naming none of our accounts
// is ignored and writes nothing, as is one too large to be a report (more
// objects or a longer comment than any real server sends). A Flag from a domain
// whose block rejects reports (reject_reports, or a suspension) is dropped.
import { statusesByIds } from '../db/statuses';
import { htmlToText } from '../federation/sanitize';
import { parseLocalUrl } from '../federation/urls';
import { idsOf } from '../federation/vocab';
import { log } from '../log';
import { rejectsReports } from '../policy/instance_domains';
import { receiveReport } from '../reports/receive';
import { localAccountAt, type Outcome, type Received } from './received';

/** Objects a Flag may name (an account and the statuses reported): more is not a report. */
export const FLAG_OBJECTS_MAX = 101;
/** A Flag's content as sent, before it is read as text and capped: more is not a report. */
export const FLAG_CONTENT_RAW_MAX = 20_000;

/** The Flag's comment as sent ('' when there is none), or undefined when it is oversize. */
function rawContent(received: Received): string | undefined {
  const content = received.activity.content;
  if (typeof content !== 'string') return '';
  return content.length <= FLAG_CONTENT_RAW_MAX ? content : undefined;
}

export async function flag(received: Received): Promise<Outcome> {
  if (await rejectsReports(received.actor.domain)) {
    log.info('inbox: Flag from a domain whose reports are rejected dropped', { id: received.id, domain: received.actor.domain });
    return 'ignored';
  }
  const objects = idsOf(received.activity.object);
  const content = rawContent(received);
  if (objects.length > FLAG_OBJECTS_MAX || content === undefined) {
    log.info('inbox: oversize Flag ignored', { id: received.id, objects: objects.length });
    return 'ignored';
  }
  const named = objects.flatMap((uri) => {
    const target = parseLocalUrl(uri);
    return target?.kind === 'actor' ? [uri] : [];
  });
  const targets = (await Promise.all([...new Set(named)].map(localAccountAt))).flatMap((a) => a ?? []);
  if (targets.length === 0) return 'ignored';
  const statusIds = objects.flatMap((uri) => {
    const target = parseLocalUrl(uri);
    return target?.kind === 'status' ? [target.statusId] : [];
  });
  const statuses = statusIds.length > 0 ? [...(await statusesByIds([...new Set(statusIds)])).values()] : [];
  const comment = htmlToText(content);
  for (const target of new Map(targets.map((t) => [t.id, t])).values()) {
    await receiveReport(received.actor, target, statuses, comment, received.id);
  }
  return 'applied';
}

// Announcement events of the streaming API, as Mastodon sends them to every signed-in user's `user` stream:
// `announcement` (published or changed; the Announcement entity, without `read` and `me`), `announcement.reaction`
// (a reaction's new count: `{ name, count, announcement_id }`, plus the custom emoji's images) and
// `announcement.delete` (the id, unpublished or deleted).
//
// Who listens is read off the online index (lib/db/connections.ts, the partition the fan-out reads too): one
// Query, then one frame per WebSocket connection holding a `user` stream and one log entry per account with a
// server-sent-event listener on it. Nobody online: the Query is the whole cost. A publish never fails the action
// that caused it (the reaction stands, the CLI command is done): a failure is logged.
import { announcementById, type Announcement } from '../db/announcements';
import { onlineListeners, type OnlineListener } from '../db/connections';
import { appendStreamEvents, type NewStreamLogEntry } from '../db/stream_log';
import { newId } from '../ids';
import { log } from '../log';
import { renderAnnouncement, renderReaction } from '../render/announcement';
import { channels, parseStreamKey, sendFrame } from '../streaming/connections';
import { emojisOf } from './index';

export type AnnouncementEvent = 'announcement' | 'announcement.reaction' | 'announcement.delete';

/** Frames in flight at once. */
const SEND_CONCURRENCY = 16;

const holdsUserStream = (l: OnlineListener) => l.streams.some((key) => parseStreamKey(key)?.stream === 'user');

/** What one publish reached (tests and logs). */
export type AnnouncementPublish = { sent: number; logged: number };

async function publishToEveryone(event: AnnouncementEvent, payload: () => Promise<string | undefined>): Promise<AnnouncementPublish> {
  const listening = [...(await onlineListeners()).values()].flat().filter(holdsUserStream);
  if (listening.length === 0) return { sent: 0, logged: 0 };
  const body = await payload();
  if (body === undefined) return { sent: 0, logged: 0 };
  const sockets = listening.filter((l) => l.kind === 'ws');
  let sent = 0;
  for (let i = 0; i < sockets.length; i += SEND_CONCURRENCY) {
    const results = await Promise.allSettled(sockets.slice(i, i + SEND_CONCURRENCY).map((l) => sendFrame(l.listenerId, { stream: ['user'], event, payload: body })));
    sent += results.filter((r) => r.status === 'fulfilled' && r.value).length;
  }
  const sseAccounts = [...new Set(listening.filter((l) => l.kind === 'sse').map((l) => l.accountId))];
  const logged = sseAccounts.map((accountId): NewStreamLogEntry => ({ channel: channels.home(accountId), id: newId(), event, payload: body, shared: null }));
  await appendStreamEvents(logged);
  return { sent, logged: logged.length };
}

const guarded = async (event: AnnouncementEvent, id: string, run: () => Promise<AnnouncementPublish>): Promise<AnnouncementPublish> => {
  try {
    return await run();
  } catch (err) {
    log.error('streaming: announcement event not published', { err, event, announcementId: id });
    return { sent: 0, logged: 0 };
  }
};

/** A published announcement, new or changed. */
export const publishAnnouncement = (a: Announcement) =>
  guarded('announcement', a.id, () =>
    publishToEveryone('announcement', async () => JSON.stringify(renderAnnouncement(a, undefined, await emojisOf([a])))),
  );

/** A reaction's count changed (0 once its last account took it back). */
export const publishAnnouncementReaction = (announcementId: string, name: string) =>
  guarded('announcement.reaction', announcementId, () =>
    publishToEveryone('announcement.reaction', async () => {
      const a = await announcementById(announcementId, true);
      if (!a?.published) return undefined;
      const emojis = await emojisOf([{ ...a, text: '', reactionCounts: { [name]: 0 } }]);
      return JSON.stringify({ ...renderReaction(name, Math.max(0, a.reactionCounts[name] ?? 0), { emojis }), announcement_id: a.id });
    }),
  );

/** An announcement no user may see any more: unpublished or deleted. */
export const publishAnnouncementDelete = (announcementId: string) =>
  guarded('announcement.delete', announcementId, () => publishToEveryone('announcement.delete', async () => announcementId));

// Statuses rendered for many stream receivers at once. Everything but the
// viewer's own flags is the same for every receiver, so a status is rendered
// once without a viewer (the status renderer's batch read), and each receiver's
// flags (favourited, reblogged, bookmarked, muted, pinned, their poll vote) are
// read for all receivers in one more batch read and laid over it. The result
// equals `renderStatus(status, receiver)` (test/integration/streaming-publish).
import { z } from 'zod';
import { keys, type Key } from '../db/keys';
import { pollVoteItem } from '../db/polls';
import { statusesByIds, type Status } from '../db/statuses';
import { batchGet, keyString } from '../db/table';
import { renderStatuses } from '../render/status';

type Rendered = Record<string, unknown>;

/** A status as it is streamed: the status itself and, for a reblog, its original. */
export type StatusView = { status: Status; original?: Status };

const anyItem = z.record(z.string(), z.unknown());

/** The statuses whose flags a rendering shows: the reblog and its original, or the status. */
const partsOf = (view: StatusView): Status[] => (view.original ? [view.status, view.original] : [view.status]);

function flagKeys(s: Status, viewerId: string): Key[] {
  const list = [
    keys.favourite(viewerId, s.id),
    keys.reblogFlag(viewerId, s.id),
    keys.bookmark(viewerId, s.id),
    keys.conversationMute(viewerId, s.conversationId),
  ];
  if (s.accountId === viewerId) list.push(keys.pin(viewerId, s.id));
  if (s.pollId) list.push(keys.pollVote(s.pollId, viewerId));
  return list;
}

/** The viewer-independent rendering; undefined when the status cannot be shown (author or original gone). */
export async function renderShared(view: StatusView): Promise<Rendered | undefined> {
  const [rendered] = await renderStatuses([view.status], undefined);
  return rendered;
}

/**
 * The rendering of `view` for each of `viewerIds`, from the shared one: one
 * batch read of every viewer's flag keys (100 keys per call).
 */
export async function personalize(view: StatusView, shared: Rendered, viewerIds: string[]): Promise<Map<string, Rendered>> {
  const viewers = [...new Set(viewerIds)];
  const parts = partsOf(view);
  const loaded = viewers.length > 0 ? await batchGet(viewers.flatMap((v) => parts.flatMap((s) => flagKeys(s, v))), anyItem) : new Map();
  const has = (k: Key) => loaded.has(keyString(k));

  const overlay = (rendered: Rendered, s: Status, viewerId: string): Rendered => {
    const out: Rendered = {
      ...rendered,
      favourited: has(keys.favourite(viewerId, s.id)),
      reblogged: has(keys.reblogFlag(viewerId, s.id)),
      muted: has(keys.conversationMute(viewerId, s.conversationId)),
      bookmarked: has(keys.bookmark(viewerId, s.id)),
    };
    if (s.accountId === viewerId && !s.reblogOfId) out.pinned = has(keys.pin(viewerId, s.id));
    if (s.pollId && isRecord(rendered.poll)) {
      const raw = loaded.get(keyString(keys.pollVote(s.pollId, viewerId)));
      const vote = raw === undefined ? undefined : pollVoteItem.parse(raw);
      out.poll = { ...rendered.poll, voted: vote !== undefined || viewerId === s.accountId, own_votes: vote?.choices ?? [] };
    }
    return out;
  };

  const out = new Map<string, Rendered>();
  for (const viewerId of viewers) {
    const outer = overlay(shared, view.status, viewerId);
    if (view.original && isRecord(shared.reblog)) outer.reblog = overlay(shared.reblog, view.original, viewerId);
    out.set(viewerId, outer);
  }
  return out;
}

const isRecord = (value: unknown): value is Rendered => typeof value === 'object' && value !== null && !Array.isArray(value);

const renderedIds = z.object({ id: z.string(), reblog: z.object({ id: z.string() }).nullable().optional() });

/**
 * A shared rendering (as logged once for every reader of a public or hashtag
 * channel) personalized for one reader: the statuses it shows are read again
 * (one batch read) for the keys of the reader's flags (a second). Answers the
 * shared payload unchanged when the statuses are gone meanwhile.
 */
export async function personalizePayload(payload: string, viewerId: string): Promise<string> {
  const parsed: unknown = JSON.parse(payload);
  const ids = renderedIds.safeParse(parsed);
  if (!ids.success || !isRecord(parsed)) return payload;
  const reblogId = ids.data.reblog?.id;
  const found = await statusesByIds(reblogId ? [ids.data.id, reblogId] : [ids.data.id]);
  const status = found.get(ids.data.id);
  const original = reblogId ? found.get(reblogId) : undefined;
  if (!status || (reblogId && !original)) return payload;
  const mine = (await personalize({ status, original }, parsed, [viewerId])).get(viewerId);
  return mine ? JSON.stringify(mine) : payload;
}

// How several receivers stand towards the few authors a streamed quote shows (lib/streaming/quotes.ts): each
// one's block of the author, the author's block of it, its mute of the author and its block of the author's
// domain, read by exact key for every (receiver, author) pair in batch reads of 100 keys, rather than each
// receiver's block, blocked-by and mute partitions whole (lib/db/blocks.ts blockAndMuteSets: three Queries each).
import { z } from 'zod';
import { muteActive, muteItem } from './blocks';
import { blockableDomain } from './domain_blocks';
import * as keys from './keys';
import type { Key } from './keys';
import { batchGet, keyString, parseItem } from './table';

/** How a receiver stands towards one author. */
export type QuoteStanding = { blocks: boolean; blockedBy: boolean; mutes: boolean; blocksDomain: boolean };

const NONE: QuoteStanding = { blocks: false, blockedBy: false, mutes: false, blocksDomain: false };
const anyItem = z.record(z.unknown());

/**
 * The standing of each receiver towards each author (never towards itself: NONE); `receiverIds` are those that
 * may have any block or mute at all (the caller leaves out those whose account says they have none).
 */
export async function quoteStandings(
  receiverIds: string[],
  authors: { id: string; domain: string | null }[],
): Promise<(receiverId: string, authorId: string) => QuoteStanding> {
  const keysOf = (receiverId: string, author: { id: string; domain: string | null }): Key[] => {
    if (author.id === receiverId) return [];
    const domain = blockableDomain(author);
    return [keys.block(receiverId, author.id), keys.block(author.id, receiverId), keys.mute(receiverId, author.id), ...(domain ? [keys.domainBlock(receiverId, domain)] : [])];
  };
  const wanted = receiverIds.flatMap((r) => authors.flatMap((a) => keysOf(r, a)));
  const found = wanted.length > 0 ? await batchGet(wanted, anyItem) : new Map<string, Record<string, unknown>>();
  const byId = new Map(authors.map((a) => [a.id, a]));
  return (receiverId, authorId) => {
    const author = byId.get(authorId);
    if (!author || authorId === receiverId) return NONE;
    const domain = blockableDomain(author);
    return {
      blocks: found.has(keyString(keys.block(receiverId, authorId))),
      blockedBy: found.has(keyString(keys.block(authorId, receiverId))),
      mutes: muteActive(parseItem(muteItem, found.get(keyString(keys.mute(receiverId, authorId))))),
      blocksDomain: domain !== undefined && found.has(keyString(keys.domainBlock(receiverId, domain))),
    };
  };
}

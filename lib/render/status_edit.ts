// StatusEdit entity (https://docs.joinmastodon.org/entities/StatusEdit/) and
// StatusSource (https://docs.joinmastodon.org/entities/StatusSource/), Mastodon
// 4.0: each version of an edited status as it was then (its content, content
// warning, sensitivity, attachments with the descriptions they had, poll
// options), by its author as the author is now. One batch read each of the
// versions' attachments and custom emoji.
import type { Account } from '../db/accounts';
import { emojisByShortcodes } from '../db/emojis';
import { mediaByIds } from '../db/media';
import type { StatusEdit } from '../db/status_edits';
import type { Status } from '../db/statuses';
import { renderAccount } from './account';
import { renderAttachment } from './attachment';
import { emojisFor, shortcodesOfEach } from './emoji';

export async function renderStatusEdits(versions: StatusEdit[], author: Account): Promise<Record<string, unknown>[]> {
  const shortcodes = shortcodesOfEach(versions.map((v) => [v.spoilerText, v.text]));
  const [media, emojis] = await Promise.all([mediaByIds([...new Set(versions.flatMap((v) => v.mediaIds))]), emojisByShortcodes(shortcodes)]);
  const account = renderAccount(author);
  return versions.map((v) => ({
    content: v.contentHtml,
    spoiler_text: v.spoilerText,
    sensitive: v.sensitive,
    created_at: v.createdAt,
    account,
    poll: v.pollOptions ? { options: v.pollOptions.map((title) => ({ title })) } : null,
    // Each attachment with the description it had at this version.
    media_attachments: v.mediaIds.flatMap((id, i) => {
      const found = media.get(id);
      return found ? [renderAttachment({ ...found, description: v.mediaDescriptions[i] ?? null })] : [];
    }),
    emojis: emojisFor([v.spoilerText, v.text], emojis),
  }));
}

/** The text a status was written from, for editing it: ours as typed; a remote one has only its plain text. */
export const renderStatusSource = (status: Status) => ({ id: status.id, text: status.text, spoiler_text: status.spoilerText });

// Translation entity (https://docs.joinmastodon.org/entities/Translation/), in the order of Mastodon's
// REST::TranslationSerializer: `poll` is null for a status without one, `media_attachments` lists each
// attachment with its translated description.
import type { Status } from '../db/statuses';
import type { StoredTranslation } from '../db/translations';

export const renderTranslation = (t: StoredTranslation, status: Pick<Status, 'pollId'>) => ({
  detected_source_language: t.detectedSourceLanguage,
  language: t.language,
  provider: t.provider,
  spoiler_text: t.spoilerText,
  content: t.content,
  poll: status.pollId ? { id: status.pollId, options: t.pollOptions.map((title) => ({ title })) } : null,
  media_attachments: t.media.map((m) => ({ id: m.id, description: m.description })),
});

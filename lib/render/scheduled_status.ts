// The ScheduledStatus entity (https://docs.joinmastodon.org/entities/ScheduledStatus/):
// id, scheduled_at, params (the spec's keys, unset members null) and the reserved attachments.
import { mediaByIds } from '../db/media';
import type { Scheduled } from '../db/scheduled';
import { renderAttachment } from './attachment';

/** Same order as input; one batch read for every attachment. */
export async function renderScheduledStatuses(list: Scheduled[]): Promise<Record<string, unknown>[]> {
  const media = await mediaByIds([...new Set(list.flatMap((s) => s.params.media_ids ?? []))]);
  return list.map((s) => {
    const p = s.params;
    return {
      id: s.id,
      scheduled_at: s.scheduledAt,
      params: {
        poll: p.poll,
        text: p.text,
        media_ids: p.media_ids,
        sensitive: p.sensitive,
        visibility: p.visibility,
        idempotency: p.idempotency,
        scheduled_at: p.scheduled_at,
        spoiler_text: p.spoiler_text,
        // An integer in the entity; app ids are snowflakes beyond 2^53, so this is the nearest double.
        application_id: s.appId !== null && /^\d+$/.test(s.appId) ? Number(s.appId) : null,
        in_reply_to_id: p.in_reply_to_id,
        quoted_status_id: p.quoted_status_id,
        quote_approval_policy: p.quote_approval_policy,
      },
      media_attachments: (p.media_ids ?? []).flatMap((id) => {
        const m = media.get(id);
        return m ? [renderAttachment(m)] : [];
      }),
    };
  });
}

export async function renderScheduledStatus(s: Scheduled): Promise<Record<string, unknown>> {
  const [one] = await renderScheduledStatuses([s]);
  return one ?? {};
}

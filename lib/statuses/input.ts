// The fields a status is written from, as posting (POST /api/v1/statuses) and
// editing (PUT /api/v1/statuses/:id) both take them: text, content warning,
// sensitivity, language, attachments and poll. Raw caps first (lib/text/limits.ts),
// so that no text costs more to count than a normal one; the counted limits are
// checked in lib/statuses.
import { z } from 'zod';
import { absent, booleanish, intString } from '../schema';
import { cappedText, COUNTED_LIMITS, RAW_CAPS } from '../text/limits';

/** A status id or attachment id as a request names it (checked against the table later). */
export const requestedId = z.string({ invalid_type_error: 'must be a string' }).max(20, 'is not a valid id');

export const statusInputFields = {
  status: absent(cappedText(RAW_CAPS.statusText, COUNTED_LIMITS.statusCharacters)),
  spoiler_text: absent(cappedText(RAW_CAPS.spoilerText, COUNTED_LIMITS.statusCharacters)),
  sensitive: absent(booleanish),
  language: absent(z.string({ invalid_type_error: 'must be a string' }).max(10)),
  media_ids: z
    .preprocess((v) => (typeof v === 'string' ? [v] : v === null ? undefined : v), z.array(requestedId, { invalid_type_error: 'must be an array' }).max(20).optional())
    .default([]),
  poll: absent(
    z.object(
      {
        options: absent(z.array(cappedText(RAW_CAPS.pollOption, COUNTED_LIMITS.pollOptionCharacters), { invalid_type_error: 'must be an array' }).max(RAW_CAPS.pollOptionCount)),
        expires_in: absent(intString),
        multiple: absent(booleanish),
        hide_totals: absent(booleanish),
      },
      { invalid_type_error: 'must be an object' },
    ),
  ),
};

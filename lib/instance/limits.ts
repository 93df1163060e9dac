// What the instance accepts, announced in GET /api/v1/instance (and v2) as
// `configuration`. The code that enforces a limit should import it from here,
// so the announcement and the rule cannot drift apart.
import { uploadSizeLimit } from '../http/limits';
import { MAX_INPUT_PIXELS } from '../media/image';
import { URL_COUNTED_LENGTH } from '../text';
import { COUNTED_LIMITS } from '../text/limits';

// Raw input caps (checked before any parsing) and the counted limits live in lib/text/limits.ts, which imports
// nothing heavy so that every handler can use it; what is announced here comes from there.
export { COUNTED_LIMITS, RAW_CAPS } from '../text/limits';

export const STATUS_LIMITS = {
  maxCharacters: COUNTED_LIMITS.statusCharacters,
  maxMediaAttachments: 4,
  charactersReservedPerUrl: URL_COUNTED_LENGTH,
};

export const MEDIA_LIMITS = {
  supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif', 'image/avif'],
  /**
   * What one upload request carries through API Gateway and Lambda (lib/http/limits.ts, about 4.5 MB),
   * or less where the stage says so (MEDIA_SIZE_LIMIT): clients check a file against it before sending.
   */
  get imageSizeLimit() { return uploadSizeLimit(); },
  imageMatrixLimit: MAX_INPUT_PIXELS,
  /** Audio and video go through the same request, and are kept as uploaded under the same limit (lib/media/processing.ts). */
  get videoSizeLimit() { return uploadSizeLimit(); },
  // No video type is announced (see supportedMimeTypes) and nothing is transcoded; these are
  // Mastodon 3.x's defaults, sent because clients expect the fields to be numbers.
  videoFrameRateLimit: 60,
  videoMatrixLimit: 2_304_000,
  descriptionLimit: COUNTED_LIMITS.mediaDescription,
};

export const POLL_LIMITS = {
  maxOptions: COUNTED_LIMITS.pollOptions,
  maxCharactersPerOption: COUNTED_LIMITS.pollOptionCharacters,
  minExpiration: 5 * 60,
  maxExpiration: 2_629_746,
};

export const ACCOUNT_LIMITS = {
  maxFeaturedTags: 10,
  maxPinnedStatuses: 5,
};

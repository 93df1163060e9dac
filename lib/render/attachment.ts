// The Attachment entity (https://docs.joinmastodon.org/entities/MediaAttachment/), in
// Mastodon 3.x's shape: `text_url` is still present, `preview_remote_url` is null for local files.
import { config } from '../config';
import type { Media } from '../db/media';
import { mediaUrl } from '../media/storage';

type Dimensions = { width: number; height: number };

const sizeMeta = ({ width, height }: Dimensions) => ({
  width,
  height,
  size: `${width}x${height}`,
  aspect: height === 0 ? 0 : width / height,
});

/** `meta` as Paperclip writes it: only the styles that exist, `focus` only once it was set. */
function renderMeta(media: Media): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (media.original) meta.original = sizeMeta(media.original);
  if (media.small) meta.small = sizeMeta(media.small);
  if (media.focus) meta.focus = { x: media.focus.x, y: media.focus.y };
  return meta;
}

/**
 * A remote attachment not copied here (yet, or refused: lib/federation/remote_media.ts) is shown from its server:
 * `url` is its `remote_url`, and an image is its own preview. Once copied, it renders as an upload does.
 */
function remoteFileUrls(media: Media): { url: string | null; previewUrl: string | null } {
  const url = media.remoteUrl;
  return { url, previewUrl: media.type === 'image' ? url : null };
}

/**
 * Where a remote attachment whose URL the address guard refused points: Paperclip's default URL of a missing
 * `file`, where Mastodon's media proxy ends for a file it could not fetch. It is ours, so no client is sent into
 * its viewer's own network; clients show an `unknown` attachment as a link, not inline.
 */
export const MISSING_FILE_PATH = '/files/original/missing.png';

function renderRefused(media: Media): Record<string, unknown> {
  const url = `${config.baseUrl}${MISSING_FILE_PATH}`;
  return {
    id: media.id,
    type: 'unknown',
    url,
    preview_url: null,
    remote_url: null,
    preview_remote_url: null,
    text_url: url,
    meta: renderMeta(media),
    description: media.description,
    blurhash: media.blurhash,
  };
}

export function renderAttachment(media: Media): Record<string, unknown> {
  if (media.remoteUrlRefused && !media.fileKey) return renderRefused(media);
  const ready = media.state === 'ready';
  const remote = media.remoteUrl !== null && !media.fileKey ? remoteFileUrls(media) : undefined;
  const url = remote ? remote.url : ready && media.fileKey ? mediaUrl(media.fileKey) : null;
  return {
    id: media.id,
    type: media.type,
    // null while processing: masto and other clients poll GET /api/v1/media/:id until it is set.
    url,
    // Files that are not images have no preview, as Mastodon answers for files without a `small` style.
    preview_url: remote ? remote.previewUrl : ready && media.previewKey ? mediaUrl(media.previewKey) : null,
    remote_url: media.remoteUrl,
    preview_remote_url: null,
    // Mastodon 3.x links a local file's page here; the file itself is the closest thing served.
    text_url: url,
    meta: renderMeta(media),
    description: media.description,
    blurhash: media.blurhash,
  };
}

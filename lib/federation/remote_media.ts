// The remoteMedia worker's work: copies another server's file into our bucket
// (Mastodon's remote attachment and avatar downloads). The file is fetched
// through the address guard (./fetch.ts fetchMedia: unsigned, a byte cap that stops
// reading, a time limit, each redirect checked), then processed and stored as an
// upload is (lib/media/remote.ts), and the item that shows it is pointed at the
// copy by a conditional update: a status deleted meanwhile, or an actor that named
// another image since, keeps nothing, and the stored objects are removed.
//
// A fetch that fails (the server down, a timeout, a 5xx or 429) leaves the remote
// URL shown and is tried again later, with growing delays, a few times. A file
// refused (a private address, a suspended server, too large, not an image, video
// or audio, not what its server said it was, a 4xx) is not tried again. One the
// address guard refused (a name that resolves inside, a redirect there, a suspended
// server) is not shown either: the attachment renders as missing, the avatar or
// header as the default image, as a browser would otherwise request it from every
// viewer's own network.
//
// A file of an account on a domain whose block rejects media (reject_media, or a
// suspension) is not copied at all, as Mastodon skips their downloads.
import { accountById } from '../db/accounts';
import { markRemoteUrlRefused, mediaById, setRemoteMediaFiles } from '../db/media';
import { forgetRefusedProfileImage, setRemoteProfileImage } from '../db/remote';
import { log } from '../log';
import { anyMediaRejected, rejectsMedia } from '../policy/instance_domains';
import { remoteAttachmentMaxBytes, REMOTE_PROFILE_IMAGE_MAX_BYTES, storeRemoteAttachment, storeRemoteProfileImage } from '../media/remote';
import { deleteMediaQuietly } from '../media/storage';
import { enqueue } from '../queue';
import type { RemoteFileMessage } from '../queue/messages';
import { FetchFailed, FetchRefused, FetchTooLarge, fetchMedia } from './fetch';

/** Delay before attempt n+1 after attempt n failed (n from 1): 1 min, 5 min, 15 min (SQS delays at most 15 min). */
export const RETRY_DELAYS_S = [60, 300, 900];
/** A file is fetched at most this many times. */
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

/** Worth another try later: the network, a timeout, the server's own trouble; not a refusal or an answer about the file. */
function isPassing(err: FetchFailed): boolean {
  if (err instanceof FetchRefused || err instanceof FetchTooLarge) return false;
  if (err.status === undefined) return true;
  return err.status >= 500 || err.status === 408 || err.status === 429;
}

/** The next attempt of a message; it carries no stale object, which the first attempt removed. */
function retryOf(message: RemoteFileMessage): RemoteFileMessage {
  if (message.kind === 'attachment') return { ...message, attempt: message.attempt + 1 };
  const { staleKey: _removed, ...rest } = message;
  return { ...rest, attempt: message.attempt + 1 };
}

/**
 * The file's bytes; `refused` when the address guard refused the URL (or a redirect from it), which is then never
 * shown; undefined when there are none to process now: refused for another reason (given up, the URL still
 * shown), or failed and sent back for a later attempt (given up after the last).
 */
async function fetchFor(message: RemoteFileMessage, url: string, maxBytes: number): Promise<Buffer | 'refused' | undefined> {
  try {
    return await fetchMedia(url, { maxBytes });
  } catch (err) {
    if (!(err instanceof FetchFailed)) throw err;
    const context = { url, attempt: message.attempt, reason: err.reason };
    if (err instanceof FetchRefused) {
      log.info('remote media: the address guard refused it; its URL is no longer shown', context);
      return 'refused';
    } else if (!isPassing(err)) {
      log.info('remote media: refused; its own URL stays shown', context);
    } else if (message.attempt >= MAX_ATTEMPTS) {
      log.info('remote media: given up after the last attempt; its own URL stays shown', context);
    } else {
      log.info('remote media: fetch failed; trying again later', context);
      await enqueue('remoteMedia', retryOf(message), { delaySeconds: RETRY_DELAYS_S[message.attempt - 1] });
    }
    return undefined;
  }
}

async function copyAttachment(message: Extract<RemoteFileMessage, { kind: 'attachment' }>): Promise<void> {
  const media = await mediaById(message.mediaId);
  // Gone with its status, not remote, or copied by an earlier delivery of this message.
  if (!media?.remoteUrl || media.fileKey || media.remoteUrlRefused) return;
  if ((await anyMediaRejected()) && (await rejectsMedia((await accountById(media.accountId))?.domain))) {
    log.info('remote media: the domain\'s media are rejected; not copied', { mediaId: media.id, url: media.remoteUrl });
    return;
  }
  const data = await fetchFor(message, media.remoteUrl, remoteAttachmentMaxBytes());
  if (data === 'refused') return markRemoteUrlRefused(media.id, media.remoteUrl);
  if (!data) return;
  const result = await storeRemoteAttachment(media, data);
  if (!result.ok) {
    log.info('remote media: attachment refused; its own URL stays shown', { mediaId: media.id, url: media.remoteUrl, problem: result.problem });
    return;
  }
  if (!(await setRemoteMediaFiles(media.id, media.remoteUrl, result.stored))) await deleteMediaQuietly(result.keys);
}

async function copyProfileImage(message: Extract<RemoteFileMessage, { kind: 'profile' }>): Promise<void> {
  const account = await accountById(message.accountId);
  const keyNow = account ? (message.image === 'avatar' ? account.avatarKey : account.headerKey) : null;
  // The copy the actor's new image replaced: nothing shows it any more (only copies of profile images are ours to remove here).
  if (message.staleKey && message.staleKey !== keyNow && message.staleKey.startsWith('accounts/')) await deleteMediaQuietly([message.staleKey]);
  if (!account?.domain || !message.url) return;
  if (await rejectsMedia(account.domain)) {
    log.info('remote media: the domain\'s media are rejected; not copied', { accountId: account.id, url: message.url });
    return;
  }
  const urlNow = message.image === 'avatar' ? account.avatarRemoteUrl : account.headerRemoteUrl;
  // Another image named since (its own message copies it), or copied already.
  if (urlNow !== message.url || keyNow) return;
  const data = await fetchFor(message, message.url, REMOTE_PROFILE_IMAGE_MAX_BYTES);
  if (data === 'refused') return forgetRefusedProfileImage(account.id, message.image, message.url);
  if (!data) return;
  const result = await storeRemoteProfileImage(account.id, message.image, data);
  if (!result.ok) {
    log.info('remote media: profile image refused; its own URL stays shown', { accountId: account.id, url: message.url, problem: result.problem });
    return;
  }
  if (!(await setRemoteProfileImage(account.id, message.image, message.url, result.stored))) await deleteMediaQuietly(result.keys);
}

/** One file of the remoteMedia queue. Throws only on our own trouble (storage, the table), for SQS to retry. */
export async function copyRemoteMedia(message: RemoteFileMessage): Promise<void> {
  if (message.kind === 'attachment') await copyAttachment(message);
  else await copyProfileImage(message);
}

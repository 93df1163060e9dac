// Asks for copies of other servers' files (the remoteMedia queue, worked by
// ./remote_media.ts): a stored remote status's attachments, a remote account's
// avatar and header when its actor names new ones. Only the asking happens here,
// on the inbox's path; the fetching, which may take seconds and be retried for
// hours, never does. A copy that cannot be asked for is not worth failing what
// asked: the file's own URL is shown until a copy exists.
import type { Account } from '../db/accounts';
import { mediaByIds, type Media } from '../db/media';
import type { Status } from '../db/statuses';
import { log } from '../log';
import { enqueue } from '../queue';
import type { MessageIn } from '../queue/messages';

export const PROFILE_IMAGES = ['avatar', 'header'] as const;
export type ProfileImage = (typeof PROFILE_IMAGES)[number];
type ProfileImages = Pick<Account, 'avatarRemoteUrl' | 'headerRemoteUrl' | 'avatarKey' | 'headerKey'>;

const remoteUrlOf = (account: Pick<Account, 'avatarRemoteUrl' | 'headerRemoteUrl'>, image: ProfileImage) =>
  image === 'avatar' ? account.avatarRemoteUrl : account.headerRemoteUrl;
const keyOf = (account: Pick<Account, 'avatarKey' | 'headerKey'>, image: ProfileImage) => (image === 'avatar' ? account.avatarKey : account.headerKey);

async function request(message: MessageIn<'remoteMedia'>): Promise<void> {
  try {
    await enqueue('remoteMedia', message);
  } catch (err) {
    log.warn('remote media: copy not requested; its own URL stays shown', { message, err });
  }
}

/** One copy request per attachment that has a remote file the guard did not refuse, and no copy yet. */
export async function requestAttachmentCopies(media: Pick<Media, 'id' | 'remoteUrl' | 'remoteUrlRefused' | 'fileKey'>[]): Promise<void> {
  for (const m of media) if (m.remoteUrl && !m.remoteUrlRefused && !m.fileKey) await request({ kind: 'attachment', mediaId: m.id, attempt: 1 });
}

/**
 * The copies an actor document makes stale, to clear in the update that stores it: an image whose URL changed
 * (or went) no longer shows what its copy holds, so the new URL is shown until it is copied in turn.
 */
export function staleProfileCopies(stored: ProfileImages, actor: Pick<Account, 'avatarRemoteUrl' | 'headerRemoteUrl'>): Partial<Pick<Account, 'avatarKey' | 'headerKey'>> {
  const cleared: Partial<Pick<Account, 'avatarKey' | 'headerKey'>> = {};
  if (stored.avatarKey && stored.avatarRemoteUrl !== actor.avatarRemoteUrl) cleared.avatarKey = null;
  if (stored.headerKey && stored.headerRemoteUrl !== actor.headerRemoteUrl) cleared.headerKey = null;
  return cleared;
}

/**
 * After a remote account is stored (`before`: as it was, when it existed): a copy request for each image it
 * names and has no copy of, carrying the object of the copy it replaced, for the worker to remove.
 */
export async function requestProfileImageCopies(account: Account, before?: ProfileImages): Promise<void> {
  if (!account.domain) return;
  for (const image of PROFILE_IMAGES) {
    const url = remoteUrlOf(account, image);
    const oldKey = before ? keyOf(before, image) : null;
    const staleKey = oldKey && oldKey !== keyOf(account, image) ? oldKey : undefined;
    if ((url && !keyOf(account, image)) || staleKey) {
      await request({ kind: 'profile', image, accountId: account.id, url: url ?? null, ...(staleKey ? { staleKey } : {}), attempt: 1 });
    }
  }
}

/** The copy requests of a stored status's attachments, again (a redelivery finishing what a crash left undone). */
export async function requestCopiesOfStatus(status: Pick<Status, 'mediaIds'>): Promise<void> {
  if (status.mediaIds.length === 0) return;
  await requestAttachmentCopies([...(await mediaByIds(status.mediaIds)).values()]);
}

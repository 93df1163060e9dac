// Removing a profile picture or header (Mastodon 4.2's DELETE /api/v1/profile/avatar and
// /header): the account goes back to the default image, our stored object is deleted from
// the bucket, and remote followers' servers get an Update(Person) as after
// update_credentials. Removing what is not there changes nothing and sends nothing.
import { accountById, type Account } from '../db/accounts';
import { clearProfileImage, type ProfileImage } from '../db/profile_images';
import { notFound } from '../errors';
import { sendPersonUpdate } from '../federation/outbox';
import { deleteMediaQuietly } from '../media/storage';

/** Attempts when another profile change keeps replacing the image under the removal. */
const ATTEMPTS = 3;

export type ProfileImageKind = 'avatar' | 'header';

const attributeOf: Record<ProfileImageKind, ProfileImage> = { avatar: 'avatarKey', header: 'headerKey' };

export async function removeProfileImage(account: Account, kind: ProfileImageKind): Promise<Account> {
  const attribute = attributeOf[kind];
  let current: Account | undefined = account;
  for (let attempt = 1; ; attempt++) {
    if (!current) throw notFound();
    const key = current[attribute];
    if (key === null) return current;
    const updated = await clearProfileImage(current.id, attribute, key);
    if (updated) {
      await deleteMediaQuietly([key]);
      // Never throws: the profile is saved, a failed delivery is retried by the queue or logged.
      await sendPersonUpdate(updated);
      return updated;
    }
    if (attempt >= ATTEMPTS) throw new Error(`profile: the ${kind} kept changing during its removal`);
    current = await accountById(account.id);
  }
}

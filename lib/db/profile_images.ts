// Taking an avatar or header off a profile (DELETE /api/v1/profile/avatar|header): the
// account item's key attribute is cleared only while it still names the object the
// caller read, so a new image uploaded meanwhile is never lost with the old one.
import { accountItem, type Account } from './accounts';
import * as keys from './keys';
import { nowIso, updateItem } from './table';

export type ProfileImage = 'avatarKey' | 'headerKey';

/** Clears `attribute` if it still holds `expectedKey`; answers the updated account, or undefined when it changed meanwhile. */
export function clearProfileImage(accountId: string, attribute: ProfileImage, expectedKey: string): Promise<Account | undefined> {
  return updateItem(
    {
      Key: keys.account(accountId),
      UpdateExpression: 'SET #image = :none, updatedAt = :now',
      ConditionExpression: 'attribute_exists(PK) AND #image = :expected',
      ExpressionAttributeNames: { '#image': attribute },
      ExpressionAttributeValues: { ':none': null, ':expected': expectedKey, ':now': nowIso() },
    },
    accountItem,
  );
}

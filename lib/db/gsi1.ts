// GSI1's keys, and the index's name: each pattern names its partition prefix. Imported as a
// namespace (`import * as gsi1`), as ./keys.ts is, so a bundle keeps only the builders it calls.
import { padId } from '../ids';

/** The index's name, for a Query's IndexName. */
export const INDEX = 'GSI1';

/** Accounts waiting for approval, oldest first (admin CLI). */
export const pendingAccount = (accountId: string) => ({ GSI1PK: 'PENDING_ACCOUNTS', GSI1SK: padId(accountId) });
export const pendingAccountsPartition = 'PENDING_ACCOUNTS';
/** Access tokens of an account, newest first. */
export const accountToken = (accountId: string, tokenId: string) => ({ GSI1PK: `TOKENS#${padId(accountId)}`, GSI1SK: padId(tokenId) });
export const accountTokensPartition = (accountId: string) => `TOKENS#${padId(accountId)}`;
/** An account's own statuses and reblogs, newest first (GSI1 on the status item). */
export const accountStatus = (accountId: string, statusId: string) => ({ GSI1PK: `ACCOUNT_STATUSES#${padId(accountId)}`, GSI1SK: padId(statusId) });
export const accountStatusesPartition = (accountId: string) => `ACCOUNT_STATUSES#${padId(accountId)}`;
/** Followers of an account (GSI1 on the follow edge). */
export const follower = (followedId: string, followerId: string) => ({ GSI1PK: `FOLLOWERS#${padId(followedId)}`, GSI1SK: padId(followerId) });
export const followersPartition = (followedId: string) => `FOLLOWERS#${padId(followedId)}`;
/** Follow requests received by a locked account (GSI1 on the request item), by request id. */
export const followRequestReceived = (targetId: string, requestId: string) => ({ GSI1PK: `FOLLOW_REQUESTS#${padId(targetId)}`, GSI1SK: padId(requestId) });
export const followRequestsPartition = (targetId: string) => `FOLLOW_REQUESTS#${padId(targetId)}`;
/** Accounts blocking an account (GSI1 on the block item; blocks and mutes area). */
export const blockedBy = (targetId: string, accountId: string) => ({ GSI1PK: `BLOCKED_BY#${padId(targetId)}`, GSI1SK: padId(accountId) });
export const blockedByPartition = (targetId: string) => `BLOCKED_BY#${padId(targetId)}`;
/** An account's domain blocks by block id, for Link paging as Mastodon (GSI1 on the domain block item). */
export const domainBlockById = (accountId: string, blockId: string) => ({ GSI1PK: `DOMAIN_BLOCKS_BY_ID#${padId(accountId)}`, GSI1SK: padId(blockId) });
export const domainBlocksByIdPartition = (accountId: string) => `DOMAIN_BLOCKS_BY_ID#${padId(accountId)}`;
/** Local usernames, lower-cased, for prefix search (GSI1 on the username claim item). */
export const usernameIndex = (username: string) => ({ GSI1PK: 'USERNAMES', GSI1SK: username.toLowerCase() });
export const usernamesPartition = 'USERNAMES';
/** Lists: the lists containing an account (GSI1 on the list membership), grouped by list owner. */
export const listMembership = (accountId: string, ownerId: string, listId: string) => ({ GSI1PK: `LISTED#${padId(accountId)}`, GSI1SK: `${padId(ownerId)}#${padId(listId)}` });
export const listMembershipsPartition = (accountId: string) => `LISTED#${padId(accountId)}`;
export const listMembershipOwnerPrefix = (ownerId: string) => `${padId(ownerId)}#`;
/** The notifications of one group of a recipient, by notification id (GSI1 on a notification that has a stored group key). */
export const notificationGroupMember = (accountId: string, groupKey: string, notificationId: string) => ({ GSI1PK: `NOTIFGROUP#${padId(accountId)}#${groupKey}`, GSI1SK: padId(notificationId) });
export const notificationGroupPartition = (accountId: string, groupKey: string) => `NOTIFGROUP#${padId(accountId)}#${groupKey}`;
/** A filtered notification (it has no group key), under its recipient and sender: what accepting or dismissing a request reads. */
export const filteredNotification = (accountId: string, fromAccountId: string, notificationId: string) => ({ GSI1PK: `NOTIFFILTERED#${padId(accountId)}#${padId(fromAccountId)}`, GSI1SK: padId(notificationId) });
export const filteredNotificationsPartition = (accountId: string, fromAccountId: string) => `NOTIFFILTERED#${padId(accountId)}#${padId(fromAccountId)}`;
/** A recipient's notification requests by request id: the list Mastodon pages by id. */
export const notificationRequest = (accountId: string, requestId: string) => ({ GSI1PK: `NOTIF_REQS#${padId(accountId)}`, GSI1SK: padId(requestId) });
export const notificationRequestsPartition = (accountId: string) => `NOTIF_REQS#${padId(accountId)}`;
/** Every report, newest first: the operator's list (GSI1 on the report item). */
export const report = (id: string) => ({ GSI1PK: 'REPORTS', GSI1SK: padId(id) });
export const reportsPartition = 'REPORTS';

// ---- moderation: admin tags (lib/db/tags.ts) ----
/** Every hashtag used here, by its id (GSI1 on the tag's TAGINFO record): the admin tag list, and a tag found by id. */
export const tagById = (id: string) => ({ GSI1PK: 'TAGIDS', GSI1SK: padId(id) });
export const tagsByIdPartition = 'TAGIDS';
// ---- moderation: blocks and allows (issue 26, part "blocks": lib/db/sign_up_blocks.ts) ----
/** Every e-mail domain block by id, for the admin list's Link paging. */
export const emailDomainBlockById = (id: string) => ({ GSI1PK: 'EMAIL_DOMAIN_BLOCKS_BY_ID', GSI1SK: padId(id) });
export const emailDomainBlocksByIdPartition = 'EMAIL_DOMAIN_BLOCKS_BY_ID';
/** Every canonical e-mail block by id, for the admin list's Link paging. */
export const canonicalEmailBlockById = (id: string) => ({ GSI1PK: 'CANONICAL_EMAIL_BLOCKS_BY_ID', GSI1SK: padId(id) });
export const canonicalEmailBlocksByIdPartition = 'CANONICAL_EMAIL_BLOCKS_BY_ID';

// ---- moderation: the purge of a suspended account (lib/db/account_purge.ts) ----
/**
 * The notifications an account caused, whoever received them, by notification id: GSI1 on each notification's
 * de-duplication item (NOTIF_ONCE, written and removed with the notification), so it costs no item of its own.
 */
export const notificationSent = (fromAccountId: string, notificationId: string) => ({ GSI1PK: `NOTIFS_FROM#${padId(fromAccountId)}`, GSI1SK: padId(notificationId) });
export const notificationsSentPartition = (fromAccountId: string) => `NOTIFS_FROM#${padId(fromAccountId)}`;
/** The accounts muting an account (GSI1 on the mute item), as BLOCKED_BY# is for blocks. */
export const mutedBy = (targetId: string, accountId: string) => ({ GSI1PK: `MUTED_BY#${padId(targetId)}`, GSI1SK: padId(accountId) });
export const mutedByPartition = (targetId: string) => `MUTED_BY#${padId(targetId)}`;
/** A local account's uploads, attached or not, by media id (GSI1 on the media item of POST /api/v1/media). */
export const upload = (accountId: string, mediaId: string) => ({ GSI1PK: `UPLOADS#${padId(accountId)}`, GSI1SK: padId(mediaId) });
export const uploadsPartition = (accountId: string) => `UPLOADS#${padId(accountId)}`;

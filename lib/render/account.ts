// Account entity (https://docs.joinmastodon.org/entities/Account/), as Mastodon 4.6's REST::AccountSerializer
// renders it. Login state (e-mail, password hash, confirmation, approval) never leaves here.
import { config } from '../config';
import type { Account } from '../db/accounts';
import { mediaUrl } from '../media/storage';
import { roleOf, type Role } from '../policy/roles';
import { isSilenced, isSuspended } from '../policy/sanctions';
import type { Emoji } from '../db/emojis';
import { emojisFor, renderRemoteEmojis } from './emoji';

export const MISSING_AVATAR_PATH = '/avatars/original/missing.png';
export const MISSING_HEADER_PATH = '/headers/original/missing.png';

const image = (key: string | null, missing: string) => (key ? mediaUrl(key) : `${config.baseUrl}${missing}`);

/** Mastodon shows the day an account was created, not the instant. */
const midnight = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 10)}T00:00:00.000Z`;
};

/** Mastodon's last_status_at is a date (YYYY-MM-DD). */
const day = (iso: string | null): string | null => {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 10);
};

/** Role entity (https://docs.joinmastodon.org/entities/Role/): permissions as the decimal string of the flags. */
export const renderRole = (role: Role) => ({
  id: role.id,
  name: role.name,
  permissions: String(role.permissions),
  color: role.color,
  highlighted: role.highlighted,
});

const highlightedRoles = (account: Account): { id: string; name: string; color: string }[] => {
  const role = roleOf(account);
  return role.highlighted ? [{ id: role.id, name: role.name, color: role.color }] : [];
};

/** The fields as written (Mastodon's `fields.map(&:to_h)`): what `source` and the Profile entity show. */
export const sourceFields = (account: Account) =>
  account.fields.map((f, i) => ({ name: f.name, value: f.value, verified_at: account.fieldsHtml[i]?.verifiedAt ?? null }));

const renderedFields = (account: Account) => account.fieldsHtml.map((f) => ({ name: f.name, value: f.value, verified_at: f.verifiedAt }));

/**
 * `opts.emojis`: emoji items read by the caller's batch (keys.emoji of the
 * shortcodes in display name and note, as the status renderer does); without
 * them `emojis` is empty, since this renderer reads nothing.
 */
export function renderAccount(account: Account, opts: { withSource?: boolean; emojis?: Map<string, Emoji> } = {}) {
  // A suspended account shows its name and counts but nothing it wrote or chose (Mastodon's REST::AccountSerializer).
  const suspended = isSuspended(account);
  // A remote account's images are served from its own server until copied here (lib/federation/remote_media.ts).
  const ownAvatar = !account.avatarKey && account.avatarRemoteUrl ? account.avatarRemoteUrl : image(account.avatarKey, MISSING_AVATAR_PATH);
  const ownHeader = !account.headerKey && account.headerRemoteUrl ? account.headerRemoteUrl : image(account.headerKey, MISSING_HEADER_PATH);
  const avatar = suspended ? image(null, MISSING_AVATAR_PATH) : ownAvatar;
  const header = suspended ? image(null, MISSING_HEADER_PATH) : ownHeader;
  const local = account.domain === null;
  // A remote account's profile page is what its actor says (`url`), else its actor URI.
  const url = local ? `${config.baseUrl}/@${account.username}` : account.url ?? account.uri ?? `https://${account.domain}/@${account.username}`;
  const rendered = {
    id: account.id,
    username: account.username,
    acct: local ? account.username : `${account.username}@${account.domain}`,
    display_name: suspended ? '' : account.displayName,
    locked: suspended ? false : account.locked,
    bot: suspended ? false : account.bot,
    discoverable: suspended ? false : account.discoverable,
    indexable: suspended ? false : account.indexable,
    group: account.actorType === 'Group',
    created_at: midnight(account.createdAt),
    note: suspended ? '' : account.noteHtml,
    url,
    // The actor's id: ours is lib/federation/urls.ts's apUrls.actor (not importable from here: federation renders
    // through lib/render), a remote one's is the id its server gave it.
    uri: local ? `${config.baseUrl}/users/${account.username}` : account.uri ?? url,
    avatar,
    avatar_static: avatar,
    avatar_description: suspended ? '' : account.avatarDescription,
    header,
    header_static: header,
    header_description: suspended ? '' : account.headerDescription,
    followers_count: Math.max(0, account.followersCount),
    following_count: Math.max(0, account.followingCount),
    statuses_count: Math.max(0, account.statusesCount),
    last_status_at: day(account.lastStatusAt),
    // The owner's own choices, sent as stored even while suspended (as Mastodon's serializer does).
    hide_collections: account.hideCollections,
    show_media: account.showMedia,
    show_media_replies: account.showMediaReplies,
    show_featured: account.showFeatured,
    // `moved` is left out, as Mastodon leaves it out of an account that has not moved: no Move is stored here.
    emojis: suspended
      ? ([] as unknown[])
      : account.domain
        ? renderRemoteEmojis(account.emojis)
        : opts.emojis
          ? emojisFor([account.displayName, account.note], opts.emojis)
          : ([] as unknown[]),
    fields: suspended ? [] : renderedFields(account),
    // Present only when true, as Mastodon's `attribute :suspended, if: :suspended?` and `:limited, if: :silenced?`;
    // `memorial` likewise only for a memorialized account, which this server has no way to make, so never.
    ...(suspended ? { suspended: true as const } : {}),
    ...(isSilenced(account) ? { limited: true as const } : {}),
    // Local accounts only, as Mastodon's `if: :local?`: `noindex` is a web setting this server does not keep
    // (Mastodon's default, false), `roles` the account's role if it is shown on profiles (highlighted).
    ...(local ? { noindex: false, roles: suspended ? [] : highlightedRoles(account) } : {}),
  };
  if (!opts.withSource) return rendered;
  return {
    ...rendered,
    role: renderRole(roleOf(account)),
    source: {
      privacy: account.privacy,
      sensitive: account.sensitive,
      language: account.language,
      quote_policy: account.quotePolicy ?? 'public',
      note: account.note,
      fields: sourceFields(account),
      follow_requests_count: Math.max(0, account.followRequestsCount),
      hide_collections: account.hideCollections,
      discoverable: account.discoverable,
      indexable: account.indexable,
      attribution_domains: account.attributionDomains,
    },
  };
}

export type RenderedAccount = ReturnType<typeof renderAccount>;

/** Preferences entity (https://docs.joinmastodon.org/entities/Preferences/). */
export function renderPreferences(account: Account) {
  return {
    'posting:default:visibility': account.privacy,
    'posting:default:sensitive': account.sensitive,
    'posting:default:language': account.language,
    // Reading preferences are web-UI settings this server does not keep: Mastodon's defaults.
    'reading:expand:media': 'default',
    'reading:expand:spoilers': false,
  };
}

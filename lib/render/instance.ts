// Instance entities: V1::Instance (Mastodon 3.x, GET /api/v1/instance) and
// Instance (Mastodon 4, GET /api/v2/instance). Every field is present and, where
// we can help it, non-null: several clients crash on a null they did not expect.
// https://docs.joinmastodon.org/entities/V1_Instance/ and /entities/Instance/
import { API_VERSION, MASTODON_COMPATIBILITY, config } from '../config';
import type { Account } from '../db/accounts';
import type { InstanceSettings } from '../db/instance';
import { ACCOUNT_LIMITS, MEDIA_LIMITS, POLL_LIMITS, STATUS_LIMITS } from '../instance/limits';
import { hasTerms, withDomain, type ServedPrivacyPolicy, type ServedTerms } from '../instance/legal';
import { ABOUT_PATH, PRIVACY_POLICY_PATH, TERMS_OF_SERVICE_PATH } from '../instance/pages';
import type { InstanceStats } from '../db/stats';
import type { WeekActivity } from '../instance/activity';
import { MISSING_HEADER_PATH, renderAccount } from './account';
import { secrets } from '../secrets';
import { COUNTED_LIMITS } from '../text/limits';

/**
 * Where the source of the running software is published (Instance.source_url, an
 * AGPL courtesy). The project names no public repository yet, so this is the
 * instance itself until one is configured.
 */
export const sourceUrl = () => config.baseUrl;

/** The instance banner: the default header image this server draws and serves. */
export const thumbnailUrl = () => `${config.baseUrl}${MISSING_HEADER_PATH}`;

export const CLOSED_REGISTRATIONS_MESSAGE = 'Registrations on this server are currently closed.';

const statuses = () => ({
  max_characters: STATUS_LIMITS.maxCharacters,
  max_media_attachments: STATUS_LIMITS.maxMediaAttachments,
  characters_reserved_per_url: STATUS_LIMITS.charactersReservedPerUrl,
});

const mediaAttachments = () => ({
  supported_mime_types: [...MEDIA_LIMITS.supportedMimeTypes],
  image_size_limit: MEDIA_LIMITS.imageSizeLimit,
  image_matrix_limit: MEDIA_LIMITS.imageMatrixLimit,
  video_size_limit: MEDIA_LIMITS.videoSizeLimit,
  video_frame_rate_limit: MEDIA_LIMITS.videoFrameRateLimit,
  video_matrix_limit: MEDIA_LIMITS.videoMatrixLimit,
});

const polls = () => ({
  max_options: POLL_LIMITS.maxOptions,
  max_characters_per_option: POLL_LIMITS.maxCharactersPerOption,
  min_expiration: POLL_LIMITS.minExpiration,
  max_expiration: POLL_LIMITS.maxExpiration,
});

/** No icon is configured; clients fall back to their own. */
const NO_ICONS: { src: string; size: string }[] = [];

/** Rule entity (GET /api/v1/instance/rules and both instances); `hint` (Mastodon 4.2) is empty as rules here have none. */
export const renderRule = (r: InstanceSettings['rules'][number]) => ({ id: r.id, text: r.text, hint: '' });

/** The alt text of the thumbnail (Mastodon 4.6), which is the default header this server draws. */
export const THUMBNAIL_DESCRIPTION = 'A plain dark grey banner.';

/**
 * Instance `configuration.urls` (Mastodon 4.4): the pages of this server clients link to. The status page is the
 * operator's, if set; the terms only once some are published, as Mastodon's (TermsOfService.current).
 */
export const instanceUrls = (settings: InstanceSettings) => ({
  streaming: config.streamingUrl,
  status: settings.statusPageUrl,
  about: `${config.baseUrl}${ABOUT_PATH}`,
  privacy_policy: `${config.baseUrl}${PRIVACY_POLICY_PATH}`,
  terms_of_service: hasTerms(settings.termsDates) ? `${config.baseUrl}${TERMS_OF_SERVICE_PATH}` : null,
});

/**
 * Instance `configuration.timelines_access` (Mastodon 4.5): public preview off makes the public, hashtag and link
 * timelines ask for a token (lib/timelines/read.ts, assertPublicPreview), for local and remote posts alike.
 */
const timelinesAccess = (settings: InstanceSettings) => {
  const access = settings.publicPreview ? 'public' : 'authenticated';
  const both = { local: access, remote: access };
  return { live_feeds: both, hashtag_feeds: both, trending_link_feeds: both };
};

export type InstanceFacts = {
  settings: InstanceSettings;
  /** The contact account; undefined only when the instance has no account to name at all. */
  contact: Account | undefined;
};

export function renderInstanceV1(facts: InstanceFacts & { stats: InstanceStats }) {
  const { settings, stats, contact } = facts;
  return {
    uri: config.domain,
    title: settings.title,
    short_description: settings.shortDescription,
    description: settings.description,
    email: settings.contactEmail,
    version: API_VERSION,
    urls: { streaming_api: config.streamingUrl },
    stats: { user_count: stats.userCount, status_count: stats.statusCount, domain_count: stats.domainCount },
    thumbnail: thumbnailUrl(),
    languages: settings.languages,
    registrations: settings.registrationsMode !== 'none',
    approval_required: settings.registrationsMode === 'approved',
    invites_enabled: false,
    configuration: {
      accounts: { max_featured_tags: ACCOUNT_LIMITS.maxFeaturedTags },
      statuses: statuses(),
      media_attachments: mediaAttachments(),
      polls: polls(),
    },
    // null only when there is no account to name (no contact set, no admin yet), as Mastodon.
    contact_account: contact ? renderAccount(contact, {}) : null,
    rules: settings.rules.map(renderRule),
  };
}

export function renderInstanceV2(facts: InstanceFacts & { activeMonth: number; translationEnabled: boolean; wrapstodon: number | null }) {
  const { settings, contact, activeMonth } = facts;
  const enabled = settings.registrationsMode !== 'none';
  return {
    domain: config.domain,
    title: settings.title,
    version: API_VERSION,
    source_url: sourceUrl(),
    description: settings.shortDescription,
    // Mastodon counts no one while federation is limited to allowed servers (a private server shows no size).
    usage: { users: { active_month: settings.limitedFederation ? 0 : activeMonth } },
    thumbnail: { url: thumbnailUrl(), description: THUMBNAIL_DESCRIPTION },
    icon: NO_ICONS,
    languages: settings.languages,
    // Not in Mastodon's v2 entity: Ice Cubes reads only the v2 instance, and its streaming URL from v1's `urls.streaming_api`.
    urls: { streaming_api: config.streamingUrl },
    configuration: {
      urls: instanceUrls(settings),
      // Never empty: without a configured pair the stage derives one (lib/secrets.ts), so Web Push works everywhere.
      vapid: { public_key: secrets().vapidPublicKey },
      accounts: {
        max_featured_tags: ACCOUNT_LIMITS.maxFeaturedTags,
        max_pinned_statuses: ACCOUNT_LIMITS.maxPinnedStatuses,
        // Mastodon 4.6: the profile's limits, the ones lib/accounts/profile.ts enforces.
        max_display_name_length: COUNTED_LIMITS.displayName,
        max_note_length: COUNTED_LIMITS.note,
        max_avatar_description_length: COUNTED_LIMITS.mediaDescription,
        max_header_description_length: COUNTED_LIMITS.mediaDescription,
        max_profile_fields: COUNTED_LIMITS.fields,
        profile_field_name_limit: COUNTED_LIMITS.fieldText,
        profile_field_value_limit: COUNTED_LIMITS.fieldText,
      },
      statuses: statuses(),
      media_attachments: { ...mediaAttachments(), description_limit: MEDIA_LIMITS.descriptionLimit },
      polls: polls(),
      timelines_access: timelinesAccess(settings),
      limited_federation: settings.limitedFederation,
      // Whether POST /api/v1/statuses/:id/translate can answer: a service is configured (lib/translation/).
      translation: { enabled: facts.translationEnabled },
    },
    registrations: {
      enabled,
      approval_required: settings.registrationsMode === 'approved',
      // Mastodon sends null while registrations are open; an empty message reads the same and never crashes a client.
      message: enabled ? '' : CLOSED_REGISTRATIONS_MESSAGE,
      // A reason is asked for but never required here; no minimum age is set; sign-up is this server's own.
      reason_required: false,
      min_age: null,
      url: null,
    },
    contact: {
      email: settings.contactEmail,
      account: contact ? renderAccount(contact, {}) : null,
    },
    rules: settings.rules.map(renderRule),
    api_versions: { ...MASTODON_COMPATIBILITY.apiVersions },
    // Mastodon 4.6's annual report campaign: the year whose reports may be generated now, as a string (lib/annual_reports/).
    wrapstodon: facts.wrapstodon?.toString() ?? null,
  };
}

/**
 * One week of GET /api/v1/instance/activity, as Mastodon sends it: every value a string, `week` the
 * Unix time (seconds) of its Monday's midnight, UTC.
 */
export const renderActivityWeek = (w: WeekActivity) => ({
  week: String(Date.parse(`${w.week}T00:00:00Z`) / 1000),
  statuses: String(w.statuses),
  logins: String(w.logins),
  registrations: String(w.registrations),
});

/**
 * ExtendedDescription (GET /api/v1/instance/extended_description): the operator's long description, the
 * HTML they set (`settings set description`, which v1's `description` also serves). `updated_at` is when the
 * description last changed, and null for one never set, as Mastodon's (the date of its setting's row).
 */
export const renderExtendedDescription = (settings: InstanceSettings) => ({
  // A description set before its own date was kept has the settings' date.
  updated_at: settings.descriptionUpdatedAt ?? (settings.description ? (settings.updatedAt ?? null) : null),
  content: settings.description,
});

/**
 * TermsOfService (GET /api/v1/instance/terms_of_service[/:date], Mastodon 4.4): dates as YYYY-MM-DD; `effective`
 * once its date has come; `succeeded_by` the next version's date, null for the last.
 */
export const renderTermsOfService = (terms: ServedTerms) => ({
  effective_date: terms.version.effectiveDate,
  effective: terms.effective,
  content: withDomain(terms.version.contentHtml),
  succeeded_by: terms.succeededBy,
});

/** PrivacyPolicy (GET /api/v1/instance/privacy_policy): the operator's, or the default one with its own date. */
export const renderPrivacyPolicy = (policy: ServedPrivacyPolicy) => ({
  updated_at: policy.updatedAt,
  content: withDomain(policy.contentHtml),
});

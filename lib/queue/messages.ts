// The contract of each queue: the one shape its producers send and its worker
// reads. `enqueue` checks a message against it before sending, so that a bad
// message fails at the producer, where the mistake is, and not later in a worker
// that can only drop it. Plain schemas: lib/queue sits on the base (ARCHITECTURE.md),
// and the workers in functions/workers/ join each queue to its domain code.
import { z } from 'zod';
import { id } from '../schema';

/** An e-mail to deliver (confirmation links). */
export const mailMessage = z.object({
  to: z.string().email(),
  subject: z.string().min(1),
  text: z.string(),
  html: z.string().optional(),
});
export type MailMessage = z.infer<typeof mailMessage>;

/** A successful sign-in, recorded off the token request's hot path. */
export const signInMessage = z.object({ accountId: z.string().regex(/^\d+$/), at: z.string().datetime() });
export type SignInMessage = z.infer<typeof signInMessage>;

/** Pages after the first carry the follower they start after. */
const after = id.optional();

/**
 * One page of followers of a status's fan-out (lib/timelines/fanout_queue.ts): the
 * producer (posting, deleting, reblogging) sends the first page; each page sends the next.
 */
export const fanoutMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('create'),
    statusId: id,
    after,
    /**
     * A local post's distribution (lib/timelines/fanout_owed.ts): its first page also sends the mention
     * notifications, and once done clears the record that the distribution is owed. Absent for reblogs and remote statuses.
     */
    owed: z.literal(true).optional(),
  }),
  z.object({
    type: z.literal('delete'),
    statusId: id,
    accountId: id,
    mentionIds: z.array(id).default([]),
    /** The streams the deleted status reached (absent in messages queued before it existed: every public stream, no hashtag). */
    deleted: z
      .object({
        visibility: z.enum(['public', 'unlisted', 'private', 'direct']),
        tags: z.array(z.string()).max(100),
        hasMedia: z.boolean(),
        /** A status from another server: its public streams were `public:remote`, not `public:local` (absent: local). */
        remote: z.boolean().optional(),
      })
      .optional(),
    after,
  }),
  /** A status was edited: the streams holding it hear `status.update`, its local boosters are notified, ours goes out as Update(Note). One page. */
  z.object({ type: z.literal('update'), statusId: id, /** Never set: an update is one page. */ after }),
  /**
   * The next page of a status event to its public and hashtag streams (lib/streaming/publish.ts, SHARED_PAGE_SIZE
   * listeners a page): the channels left, the first done up to the subscription key `after`, and those whose
   * server-sent-event log already holds the event.
   */
  z.object({
    type: z.literal('stream'),
    statusId: id,
    event: z.enum(['update', 'status.update', 'delete']),
    channels: z.array(z.string().min(1).max(1000)).min(1).max(500),
    /** The shard of the first channel the page starts in (absent in pages queued before channels were sharded). */
    shard: z.number().int().min(0).max(255).optional(),
    after: z.string().min(1).max(2000).optional(),
    logged: z.array(z.string().max(1000)).max(500).default([]),
  }),
]);
export type FanoutMessage = z.infer<typeof fanoutMessage>;

/**
 * The notification kinds, spelled as lib/db/notifications.ts spells them (the base may not
 * import lib/db; functions/workers/notify.ts checks at compile time that the two lists agree).
 */
export const notifyTypes = ['mention', 'status', 'reblog', 'favourite', 'follow', 'follow_request', 'poll', 'update', 'admin.sign_up', 'admin.report', 'quote', 'quoted_update', 'added_to_collection', 'collection_update'] as const;

/** A notification to write. */
export const notificationMessage = z.object({
  type: z.enum(notifyTypes),
  accountId: id,
  fromAccountId: id,
  statusId: id.optional(),
  /** The report of an `admin.report` notification. */
  reportId: id.optional(),
  /** The collection of a collection notification, and its item or change (lib/db/notifications.ts `activityId`). */
  collectionId: id.optional(),
  activityId: id.optional(),
});
export type NotificationMessage = z.infer<typeof notificationMessage>;

/**
 * Something the staff are told of (lib/moderation/staff_notices.ts): a new local sign-up (`accountId`: the new
 * account) or a new report (`reportId`). The worker finds the staff whose role may act on it, notifies each, and
 * mails the moderators of a report.
 */
export const staffNoticeMessage = z.discriminatedUnion('notice', [
  z.object({ notice: z.literal('admin.sign_up'), accountId: id }),
  z.object({ notice: z.literal('admin.report'), reportId: id }),
]);
export type StaffNoticeMessage = z.infer<typeof staffNoticeMessage>;

/** The notify queue: one notification to write, or a notice for the staff. */
export const notifyMessage = z.union([notificationMessage, staffNoticeMessage]);
export type NotifyMessage = z.infer<typeof notifyMessage>;

/** One message per created notification; the worker reads everything else. */
export const pushMessage = z.object({ accountId: id, notificationId: id });
export type PushMessage = z.infer<typeof pushMessage>;

/**
 * An activity received at an inbox whose HTTP Signature verified (functions/activitypub/inbox.ts):
 * the parsed JSON object, or, when its JSON is too large for an SQS message, the S3 key holding it.
 * `signer` is the actor URI that owns the verifying key.
 */
export const inboxMessage = z.object({
  activity: z.record(z.unknown()).optional(),
  bodyKey: z.string().min(1).optional(),
  signer: z.string().url(),
  /** The local account whose inbox received it; absent for the shared inbox. */
  recipientId: id.optional(),
  receivedAt: z.string().datetime(),
}).refine((m) => (m.activity === undefined) !== (m.bodyKey === undefined), 'exactly one of activity and bodyKey');
export type InboxMessage = z.infer<typeof inboxMessage>;

/** One activity to POST to one inbox, signed by a local account or the instance actor; `attempt` counts from 1. */
export const deliverMessage = z.object({
  inbox: z.string().url(),
  activity: z.record(z.unknown()),
  signer: z.union([z.object({ accountId: id }), z.literal('instance')]),
  attempt: z.number().int().min(1).default(1),
  /** A retry due later than SQS can delay one message (15 min): held back in hops until then (lib/federation/deliver.ts). */
  notBefore: z.string().datetime().optional(),
  /** Times this attempt was put off because its server had its deliveries in flight already (no failure; lib/federation/deliver.ts). */
  deferrals: z.number().int().min(0).optional(),
});
export type DeliverMessage = z.infer<typeof deliverMessage>;

/** Tries of one remote file, counting from 1 (lib/federation/remote_media.ts gives up after its last). */
const mediaAttempt = z.number().int().min(1).default(1);

/**
 * Another server's content to bring in for a stored remote account or status, off the path that stored it:
 * - a file to copy into our bucket (lib/federation/remote_media.ts): a remote status's attachment, or a remote
 *   account's avatar or header. `url` is the image the actor named when this was asked for (null: it has none any
 *   more); `staleKey` is the object of the image it replaced, no longer referenced, to remove;
 * - an account's featured collection to read, its pinned posts (lib/federation/featured.ts), asked for by every
 *   save of its actor. Read once: a collection that cannot be read keeps the pins, and the next save asks again;
 * - a remote status's replies to fetch (lib/federation/replies.ts), asked for when a viewer opens its thread.
 */
export const remoteMediaMessage = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('attachment'), mediaId: id, attempt: mediaAttempt }),
  z.object({
    kind: z.literal('profile'),
    image: z.enum(['avatar', 'header']),
    accountId: id,
    url: z.string().url().max(2048).nullable(),
    staleKey: z.string().min(1).max(1024).optional(),
    attempt: mediaAttempt,
  }),
  z.object({ kind: z.literal('featured'), accountId: id }),
  z.object({ kind: z.literal('replies'), statusId: id, refreshId: z.string().min(1).max(64) }),
]);
export type RemoteMediaMessage = z.infer<typeof remoteMediaMessage>;
/** The messages that copy a file. */
export type RemoteFileMessage = Exclude<RemoteMediaMessage, { kind: 'featured' | 'replies' }>;

/**
 * A status whose preview card is to be found (lib/cards/): posted or edited with a link, or edited with its card's
 * link gone. The worker reads the status again and decides from its current text.
 */
export const cardsMessage = z.object({ statusId: id });
export type CardsMessage = z.infer<typeof cardsMessage>;

/** An annual report to generate (lib/annual_reports/): the account, the year, and the async refresh a client polls. */
export const annualReportMessage = z.object({ accountId: id, year: z.number().int().min(1970).max(9999), refreshId: z.string().min(1).max(64) });
export type AnnualReportMessage = z.infer<typeof annualReportMessage>;

/** Each queue's contract (serverless.yml names its worker `<queue>Worker`). */
export const queueMessages = {
  mail: mailMessage,
  signin: signInMessage,
  fanout: fanoutMessage,
  notify: notifyMessage,
  push: pushMessage,
  inbox: inboxMessage,
  deliver: deliverMessage,
  remoteMedia: remoteMediaMessage,
  cards: cardsMessage,
  annualReport: annualReportMessage,
} as const;

export type QueueName = keyof typeof queueMessages;
export const QUEUES = Object.keys(queueMessages) as readonly QueueName[];

/** What a producer sends to `queue` (defaults may be left out). */
export type MessageIn<Q extends QueueName> = z.input<(typeof queueMessages)[Q]>;
/** What the worker of `queue` receives (defaults filled in). */
export type Message<Q extends QueueName> = z.output<(typeof queueMessages)[Q]>;
/** A queue paired with a message for it, for producers that collect several before sending. */
export type Enqueued = { [Q in QueueName]: [queue: Q, message: MessageIn<Q>] }[QueueName];

/** A message that does not keep its queue's contract: a bug in the producer, never retried. */
/** A union's issue names what each of its forms found wrong (the notify queue's two forms), not just "Invalid input". */
function flatIssues(issues: z.ZodIssue[]): z.ZodIssue[] {
  return issues.flatMap((i) => (i.code === 'invalid_union' ? i.unionErrors.flatMap((e) => flatIssues(e.issues)) : [i]));
}

export class MalformedMessage extends Error {
  constructor(
    readonly queue: QueueName,
    readonly issues: z.ZodIssue[],
  ) {
    super(`malformed ${queue} message: ${flatIssues(issues).map((i) => `${i.path.join('.') || 'message'} ${i.message}`).join(', ')}`);
    this.name = 'MalformedMessage';
  }
}

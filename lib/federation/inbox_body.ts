// Activities too large for an SQS message (256 KB, the inbox message's other
// fields included) wait in the media bucket under federation/inbox/ until the
// inbox worker has read them. The key is a random UUID, never published: the
// bucket serves its objects to anyone who holds a key, and an activity may be
// addressed to followers only.
import { randomUUID } from 'node:crypto';
import { deleteObject, getObject, putObject } from '../aws/s3';
import { config } from '../config';
import { log } from '../log';

/** Above this many bytes of JSON, an activity travels by S3 key rather than in the message. */
export const INLINE_ACTIVITY_MAX_BYTES = 200 * 1024;

const STASH_PREFIX = 'federation/inbox/';

/** Puts an activity's JSON in the bucket and answers its key. */
export async function stashBody(json: string): Promise<string> {
  const key = `${STASH_PREFIX}${randomUUID()}.json`;
  await putObject({
    Bucket: config.mediaBucket,
    Key: key,
    Body: json,
    ContentType: 'application/json',
    CacheControl: 'private, no-store',
  });
  return key;
}

/** The JSON stashed under `key`; throws when it is not there (the message is then retried, and dead-lettered in the end). */
export async function readStashedBody(key: string): Promise<string> {
  if (!key.startsWith(STASH_PREFIX)) throw new Error(`inbox body key outside ${STASH_PREFIX}: ${key}`);
  const body = await getObject({ Bucket: config.mediaBucket, Key: key });
  if (body.length === 0) throw new Error(`inbox body ${key} is empty`);
  return body.toString('utf8');
}

/** Removes a stashed body once its activity is processed; a failure leaves an orphan behind, never fails the worker. */
export async function deleteStashedBody(key: string): Promise<void> {
  if (!key.startsWith(STASH_PREFIX)) return;
  try {
    await deleteObject({ Bucket: config.mediaBucket, Key: key });
  } catch (err) {
    log.warn('inbox body: delete failed', { key, err });
  }
}

// S3 through its SDK client: path-style against a configured endpoint (s3rver), virtual-hosted in AWS.
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { config } from '../config';
import { baseSettings, clientFor } from './clients';
import { instrument, meters } from './meter';

const s3 = () =>
  clientFor('s3', config.endpointFor('S3'), () => {
    const endpoint = config.endpointFor('S3');
    const client = new S3Client({ ...baseSettings({ endpoint, s3: true }), forcePathStyle: Boolean(endpoint) });
    instrument(client.middlewareStack, 's3');
    return client;
  });

/** Counts one S3 request by its price class: PUT, COPY, POST and LIST, against GET and the others. */
function countS3(write: boolean): void {
  const meter = meters.getStore()?.meter;
  if (!meter) return;
  if (write) meter.s3Writes = (meter.s3Writes ?? 0) + 1;
  else meter.s3Reads = (meter.s3Reads ?? 0) + 1;
}

export type PutObjectInput = { Bucket: string; Key: string; Body: Buffer | string; ContentType?: string; CacheControl?: string; ContentDisposition?: string };

/** S3 PutObject. */
export async function putObject(input: PutObjectInput): Promise<void> {
  countS3(true);
  await s3().send(new PutObjectCommand(input));
}

/** S3 GetObject: the object's bytes; a missing one throws `NoSuchKey`. */
export async function getObject(input: { Bucket: string; Key: string }): Promise<Buffer> {
  countS3(false);
  const out = await s3().send(new GetObjectCommand(input));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** S3 DeleteObject. */
export async function deleteObject(input: { Bucket: string; Key: string }): Promise<void> {
  countS3(false);
  await s3().send(new DeleteObjectCommand(input));
}

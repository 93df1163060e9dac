// The SDK's S3 client, for tests that list the bucket (lib/aws has no ListObjects:
// no function lists). Pointed at the test's s3rver, path-style, as lib/aws is.
import { S3Client } from '@aws-sdk/client-s3';

let client: S3Client | undefined;
export const s3 = (): S3Client => {
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL || undefined;
  client ??= new S3Client({ endpoint, region: process.env.AWS_REGION ?? 'us-east-1', forcePathStyle: Boolean(endpoint) });
  return client;
};

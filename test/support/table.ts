// Creates this test file's table and bucket before its tests run.
import { ensureBucket, ensureTable } from '../../infra/local/bootstrap';

beforeAll(async () => {
  const dynamo = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const s3 = process.env.AWS_ENDPOINT_URL_S3;
  if (!dynamo || !s3) return; // the e2e suite brings its own stack
  await ensureTable(dynamo, process.env.TABLE_NAME!);
  await ensureBucket(s3, process.env.MEDIA_BUCKET!);
});

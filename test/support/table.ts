// Creates this test file's table and bucket before its tests run; after each test, lets what the container keeps
// expire again (test/support/http.ts warmContainer holds it for the test that counts a request's calls).
import { ensureBucket, ensureTable } from '../../infra/local/bootstrap';
import { releaseMemos } from '../../lib/memo';

beforeAll(async () => {
  const dynamo = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const s3 = process.env.AWS_ENDPOINT_URL_S3;
  if (!dynamo || !s3) return; // the e2e suite brings its own stack
  await ensureTable(dynamo, process.env.TABLE_NAME!);
  await ensureBucket(s3, process.env.MEDIA_BUCKET!);
});

afterEach(() => releaseMemos());

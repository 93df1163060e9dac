// Runs before each test file's imports: points lib/ at the shared emulators
// and gives the file a table and bucket of its own, so files never see each
// other's data or instance settings.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (process.env.TEST_DYNAMODB_ENDPOINT && process.env.TEST_S3_ENDPOINT) {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = process.env.TEST_DYNAMODB_ENDPOINT;
  process.env.AWS_ENDPOINT_URL_S3 = process.env.TEST_S3_ENDPOINT;
  process.env.MEDIA_URL = `${process.env.TEST_S3_ENDPOINT}/`;
}
const suffix = randomBytes(4).toString('hex');
process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
process.env.AWS_REGION ??= 'us-east-1';
process.env.STAGE = 'test';
process.env.TABLE_NAME = `test-${suffix}`;
process.env.MEDIA_BUCKET = `media-${suffix}`;
if (process.env.MEDIA_URL) process.env.MEDIA_URL = `${process.env.MEDIA_URL}media-${suffix}`;
process.env.BASE_URL = 'https://social.example';
process.env.STREAMING_URL = 'wss://social.example';
process.env.QUEUE_MODE = 'inline';
process.env.MAIL_DIR = join(tmpdir(), `tootless-mail-${suffix}`);
// Only the local stage may fall back to the public development secret (lib/secrets.ts); the test
// stage states its own, as a deployed one must. SECRETS_PATH (SSM) is for test/integration/secrets.test.ts.
process.env.SECRET_KEY_BASE = `test-secret-key-base-${suffix}`;
delete process.env.SECRETS_PATH;
// Every hit of the general API budgets written (lib/http/rate_tally.ts batches them by 10): a request's
// DynamoDB calls, which tests count, then do not depend on the requests before it.
process.env.RATE_TALLY_BATCH = '1';
// Tests assert on responses and stored state; expected errors (malformed queue messages and the like) need not print.
process.env.LOG_LEVEL ??= 'silent';
// The machines run Node 20 (Lambda runs nodejs22.x); the SDK's notice about later versions is not news in every test file.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

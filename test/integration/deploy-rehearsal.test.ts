// `serverless package` builds every handler and the CloudFormation template with
// no AWS credentials at all; the template holds the resources the code relies on.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

type Resource = { Type: string; Properties: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
type Template = { Resources: Record<string, Resource>; Outputs: Record<string, { Value: unknown }> };
type State = { service: { functions: Record<string, { name: string; handler: string; package?: { artifact?: string } }> } };

let dir: string;
// The bundles are kept (ESBUILD_KEEP_OUTPUT) in a build folder of this run's own.
const workFolder = join('.esbuild', `package-test-${process.pid}`);
let template: Template;
let state: State;
let output: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tootless-package-'));
  const env: Record<string, string> = {};
  // No credentials, no endpoints, no profile: packaging must not need an account.
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('AWS_')) env[k] = v;
  Object.assign(env, {
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // Its own build folder, so a parallel `npm start` or test stack keeps its bundles.
    ESBUILD_WORK_FOLDER: workFolder,
    ESBUILD_KEEP_OUTPUT: 'true',
  });
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules/serverless/bin/serverless.js'), 'package', '--stage', 'ci', '--package', join(dir, 'out')],
    { cwd: root, env, encoding: 'utf8', timeout: 280_000 },
  );
  output = `${run.stdout}\n${run.stderr}`;
  if (run.status !== 0) throw new Error(`serverless package failed (${run.status ?? run.signal}):\n${output}`);
  template = JSON.parse(readFileSync(join(dir, 'out/cloudformation-template-update-stack.json'), 'utf8'));
  state = JSON.parse(readFileSync(join(dir, 'out/serverless-state.json'), 'utf8'));
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  rmSync(join(root, workFolder), { recursive: true, force: true });
});

const ofType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
const getAtt = (id: string, attr: string) => ({ 'Fn::GetAtt': [id, attr] });

describe('serverless package --stage ci', () => {
  it('defines the single table: PK/SK, GSI1, TTL on expiresAt, on demand', () => {
    const table = template.Resources.Table!;
    expect(table.Type).toBe('AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      TableName: 'tootless-ci',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    expect(table.Properties.GlobalSecondaryIndexes).toContainEqual(
      expect.objectContaining({
        IndexName: 'GSI1',
        KeySchema: [
          { AttributeName: 'GSI1PK', KeyType: 'HASH' },
          { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
        ],
      }),
    );
  });

  it('defines the media bucket, readable object by object by anyone', () => {
    expect(template.Resources.MediaBucket?.Type).toBe('AWS::S3::Bucket');
    const [, policy] = ofType('AWS::S3::BucketPolicy').find(([, r]) => JSON.stringify(r.Properties.Bucket) === JSON.stringify({ Ref: 'MediaBucket' }))!;
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject' }),
    );
  });

  it.each([
    ['mail', 'MailQueue', 'MailDeadLetterQueue'],
    ['signin', 'SigninQueue', 'SigninDeadLetterQueue'],
  ])('defines the %s queue with a dead-letter queue after five receives', (queue, id, dlq) => {
    expect(template.Resources[id]).toMatchObject({
      Type: 'AWS::SQS::Queue',
      Properties: {
        QueueName: `tootless-ci-${queue}`,
        RedrivePolicy: { deadLetterTargetArn: getAtt(dlq, 'Arn'), maxReceiveCount: 5 },
      },
    });
    expect(template.Resources[dlq]?.Type).toBe('AWS::SQS::Queue');
  });

  it('builds one Lambda per function, each with its own ESM bundle', () => {
    const functions = Object.entries(state.service.functions);
    expect(functions.map(([key]) => key)).toEqual(expect.arrayContaining(['appsCreate', 'appsVerifyCredentials', 'mailWorker', 'signinWorker']));
    const lambdas = ofType('AWS::Lambda::Function');
    expect(lambdas).toHaveLength(functions.length);
    for (const [key, fn] of functions) {
      const resource = lambdas.find(([, r]) => r.Properties.FunctionName === fn.name);
      expect(resource).toBeDefined();
      expect(fn.name).toBe(`tootless-ci-${key}`);
      expect(resource![1].Properties).toMatchObject({ Runtime: 'nodejs20.x', Architectures: ['arm64'], Handler: fn.handler });
      // The zip's central directory lists its file names uncompressed.
      const zip = join(dir, 'out', `${key}.zip`);
      expect(existsSync(zip)).toBe(true);
      const bundle = `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.mjs`;
      expect(readFileSync(zip).includes(Buffer.from(bundle))).toBe(true);
    }
  });

  it('builds bundles that load under Node as ES modules and export their handler', () => {
    // Copied beside the build folder, each bundle resolves its native externals from
    // the project's node_modules (the zips hold the arm64 builds, which cannot load here).
    const handlers = Object.values(state.service.functions).map((fn) => fn.handler);
    const files = [...new Set(handlers.map((h) => `${h.slice(0, h.lastIndexOf('.'))}.mjs`))];
    for (const file of files) {
      const target = join(root, workFolder, 'load', file);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(join(root, workFolder, '.build', file), target);
    }
    const script = `
      const results = {};
      for (const file of ${JSON.stringify(files)}) {
        try {
          const mod = await import(${JSON.stringify(join(root, workFolder, 'load'))} + '/' + file);
          results[file] = typeof mod.handler;
        } catch (err) {
          results[file] = String(err && err.stack || err);
        }
      }
      process.stdout.write(JSON.stringify(results));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    const results = JSON.parse(run.stdout) as Record<string, string>;
    expect(results).toEqual(Object.fromEntries(files.map((f) => [f, 'function'])));
  });

  it('packs native externals for Linux on arm64 only', () => {
    for (const key of Object.keys(state.service.functions)) {
      const zip = readFileSync(join(dir, 'out', `${key}.zip`));
      if (zip.includes(Buffer.from('node_modules/sharp/'))) {
        expect(zip.includes(Buffer.from('node_modules/@img/sharp-linux-arm64/'))).toBe(true);
        expect(zip.includes(Buffer.from('node_modules/@img/sharp-linux-x64/'))).toBe(false);
      }
      if (zip.includes(Buffer.from('node_modules/argon2/'))) {
        expect(zip.includes(Buffer.from('node_modules/argon2/prebuilds/linux-arm64/'))).toBe(true);
      }
    }
  });

  it('runs each worker from its queue, reporting failed messages alone', () => {
    for (const [fn, queue] of [['MailWorker', 'MailQueue'], ['SigninWorker', 'SigninQueue']] as const) {
      const mapping = ofType('AWS::Lambda::EventSourceMapping').find(([, r]) => JSON.stringify(r.Properties.FunctionName).includes(`${fn}LambdaFunction`));
      expect(mapping?.[1].Properties).toMatchObject({
        EventSourceArn: getAtt(queue, 'Arn'),
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
  });

  it('gives every function the settings lib/config.ts reads, for SQS and SES', () => {
    const [, fn] = ofType('AWS::Lambda::Function')[0]!;
    const vars = fn.Properties.Environment.Variables;
    expect(vars).toMatchObject({
      STAGE: 'ci',
      TABLE_NAME: 'tootless-ci',
      MEDIA_BUCKET: { Ref: 'MediaBucket' },
      BASE_URL: getAtt('HttpApi', 'ApiEndpoint'),
      QUEUE_MODE: 'sqs',
      QUEUE_URL_MAIL: { Ref: 'MailQueue' },
      QUEUE_URL_SIGNIN: { Ref: 'SigninQueue' },
      FUNCTION_PREFIX: 'tootless-ci-',
      MAIL_TRANSPORT: 'ses',
      SECRET_KEY_BASE: '{{resolve:ssm:/tootless/ci/secret-key-base}}',
    });
    expect(JSON.stringify(vars.STREAMING_URL)).toContain('WebsocketsApi');
    // Frames go to the WebSocket API's own execute-api endpoint, whatever public host STREAMING_URL names.
    expect(vars.STREAMING_MANAGEMENT_URL).toEqual({
      'Fn::Join': ['', ['https://', { Ref: 'WebsocketsApi' }, '.execute-api.', { Ref: 'AWS::Region' }, '.amazonaws.com/ci']],
    });
    expect(JSON.stringify(vars.MEDIA_URL)).toContain('MediaBucket');
  });

  it('grants item-level DynamoDB access to the table and its indexes only', () => {
    const statements: { Action: string[] | string; Resource: unknown }[] =
      template.Resources.IamRoleLambdaExecution!.Properties.Policies[0].PolicyDocument.Statement;
    const dynamo = statements.filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));
    expect(dynamo).toHaveLength(1);
    expect(dynamo[0]!.Action).not.toContain('dynamodb:Scan');
    expect(dynamo[0]!.Resource).toEqual([getAtt('Table', 'Arn'), { 'Fn::Join': ['', [getAtt('Table', 'Arn'), '/index/*']] }]);
  });

  it('routes the HTTP API to the apps functions and outputs the stack\'s URLs and names', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(routes).toEqual(expect.arrayContaining(['POST /api/v1/apps', 'GET /api/v1/apps/verify_credentials']));
    expect(Object.keys(template.Outputs)).toEqual(expect.arrayContaining(['BaseUrl', 'StreamingUrl', 'TableName', 'MediaBucketName']));
  });
});

// The deploy rehearsal: `serverless package` for every kind of stage the deploy workflow
// produces (prod, main, a feature branch's), with no AWS credentials at all, then the
// checks CloudFormation and AWS would make at deploy time: resources, dynamic references
// and size per template, supported runtimes, function URL permissions, no IAM `*`,
// cfn-lint with zero errors on every template. prod is built in full and its bundles are
// loaded; the other stages' templates are built with unbundled handlers (only the
// templates are checked there). Last, prod and the feature stage are deployed into moto's
// CloudFormation as `serverless deploy` would deploy them, every nested stack included.
import { startMoto, stopMoto, type Moto } from '../support/moto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import aws4 from 'aws4';

const root = fileURLToPath(new URL('../..', import.meta.url));

type Resource = { Type: string; Properties: Record<string, any>; Condition?: string; DependsOn?: string[] }; // eslint-disable-line @typescript-eslint/no-explicit-any
type Template = { Resources: Record<string, Resource>; Outputs?: Record<string, { Value: unknown }>; Parameters?: Record<string, unknown> };
type State = { service: { functions: Record<string, { name: string; handler: string; package?: { artifact?: string } }> } };
type Packaged = { dir: string; output: string; root: Template; nested: Record<string, Template>; files: string[] };

// What AWS allows (CloudFormation quotas; Lambda runtimes that still take new functions).
const MAX_RESOURCES = 500;
const MAX_DYNAMIC_REFERENCES = 60;
const MAX_TEMPLATE_BYTES = 1024 * 1024;
const SUPPORTED_RUNTIMES = ['nodejs22.x', 'nodejs24.x'];

const stageName = (branch: string) => {
  const run = spawnSync('bash', [join(root, 'infra/deploy/stage-name.sh'), branch], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout.trim();
};
const FEATURE = stageName('feature/Add-Login');

let dir: string;
// The bundles are kept (ESBUILD_KEEP_OUTPUT) in a build folder of this run's own.
const workFolder = join('.esbuild', `package-test-${process.pid}`);
const packaged: Record<string, Packaged> = {};
let prod: Packaged;
let template: Template;
let state: State;

function packageStage(stage: string, extra: string[]): Packaged {
  const env: Record<string, string> = {};
  // No credentials, no endpoints, no profile: packaging must not need an account.
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('AWS_')) env[k] = v;
  Object.assign(env, {
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // Its own build folder, so a parallel `npm start` or test stack keeps its bundles.
    ESBUILD_WORK_FOLDER: `${workFolder}-${stage}`,
    ESBUILD_KEEP_OUTPUT: 'true',
  });
  const out = join(dir, stage);
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules/serverless/bin/serverless.js'), 'package', '--stage', stage, '--package', out, ...extra],
    // The prod stage bundles and zips all ~300 functions: minutes on a busy 2-core machine (CI runs the suite beside it).
    { cwd: root, env, encoding: 'utf8', timeout: 900_000 },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  if (run.status !== 0) throw new Error(`serverless package --stage ${stage} failed (${run.status ?? run.signal}):\n${output}`);
  const files = readdirSync(out).filter((f) => f.endsWith('.json') && f.startsWith('cloudformation-template-') && !f.endsWith('create-stack.json'));
  const read = (f: string) => JSON.parse(readFileSync(join(out, f), 'utf8')) as Template;
  const nested = Object.fromEntries(files.filter((f) => f.includes('nested-stack')).map((f) => [f, read(f)]));
  return { dir: out, output, root: read('cloudformation-template-update-stack.json'), nested, files };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tootless-package-'));
  prod = packageStage('prod', []);
  packaged.prod = prod;
  // Template-only: handlers left unbundled and no dependencies installed into the zips.
  const templateOnly = ['--param=esbuildPackages=external', '--param=esbuildExclude=*'];
  packaged.main = packageStage('main', templateOnly);
  packaged[FEATURE] = packageStage(FEATURE, templateOnly);
  template = prod.root;
  state = JSON.parse(readFileSync(join(prod.dir, 'serverless-state.json'), 'utf8'));
}, 1_800_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  for (const stage of Object.keys(packaged)) rmSync(join(root, `${workFolder}-${stage}`), { recursive: true, force: true });
});

/** Every resource of a packaged stage, nested stacks included, by logical id. */
const allResources = (p: Packaged): Record<string, Resource> =>
  Object.assign({}, p.root.Resources, ...Object.values(p.nested).map((t) => t.Resources));
/** Every template of a packaged stage: [file, template]. */
const templatesOf = (p: Packaged): [string, Template][] => [['cloudformation-template-update-stack.json', p.root], ...Object.entries(p.nested)];
const ofType = (type: string) => Object.entries(allResources(prod)).filter(([, r]) => r.Type === type);
const getAtt = (id: string, attr: string) => ({ 'Fn::GetAtt': [id, attr] });

describe('serverless package --stage prod', () => {
  it('defines the single table: PK/SK, GSI1, TTL on expiresAt, on demand', () => {
    const table = template.Resources.Table!;
    expect(table.Type).toBe('AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      TableName: 'tootless-prod',
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

  it('keeps the media bucket private, readable object by object by the stage\'s distribution only, never under federation/', () => {
    const bucket = template.Resources.MediaBucket!;
    expect(bucket.Type).toBe('AWS::S3::Bucket');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true });
    const [, policy] = ofType('AWS::S3::BucketPolicy').find(([, r]) => JSON.stringify(r.Properties.Bucket) === JSON.stringify({ Ref: 'MediaBucket' }))!;
    const statements = policy.Properties.PolicyDocument.Statement as { Principal: unknown; Action: string; NotResource: unknown; Condition: unknown }[];
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Effect: 'Allow', Principal: { Service: 'cloudfront.amazonaws.com' }, Action: 's3:GetObject' });
    expect(JSON.stringify(statements[0]!.NotResource)).toContain('/federation/*');
    expect(JSON.stringify(statements[0]!.Condition)).toContain('CdnDistribution');
  });

  describe('the distribution: one public origin', () => {
    const config = () => template.Resources.CdnDistribution!.Properties.DistributionConfig;
    const origin = (id: string) => config().Origins.find((o: { Id: string }) => o.Id === id);
    const behaviour = (path: string) => config().CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === path);
    const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
    const ALL_VIEWER_EXCEPT_HOST = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

    it('sends every path no behaviour takes to the HTTP API, caching nothing: no answer is served to another viewer', () => {
      expect(config().DefaultCacheBehavior).toMatchObject({ TargetOriginId: 'api', CachePolicyId: CACHING_DISABLED, OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST });
      expect(config().DefaultCacheBehavior.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']));
      expect(JSON.stringify(origin('api').DomainName)).toContain('HttpApi');
    });

    it('serves the WebSocket API at /api/v1/streaming, the SSE function URLs under it, the media under /system/', () => {
      expect(behaviour('/api/v1/streaming')).toMatchObject({ TargetOriginId: 'websocket', CachePolicyId: CACHING_DISABLED, OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST });
      expect(JSON.stringify(origin('websocket').DomainName)).toContain('WebsocketsApi');
      expect(behaviour('/api/v1/streaming/*')).toMatchObject({ TargetOriginId: 'sse', CachePolicyId: CACHING_DISABLED });
      expect(JSON.stringify(origin('sse').DomainName)).toContain('StreamingEventsLambdaFunctionUrl');
      expect(JSON.stringify(origin('sse-health').DomainName)).toContain('StreamingHealthLambdaFunctionUrl');
      // The more precise patterns come first: CloudFront takes the first that matches.
      const order = config().CacheBehaviors.map((b: { PathPattern: string }) => b.PathPattern);
      expect(order.indexOf('/api/v1/streaming/health')).toBeLessThan(order.indexOf('/api/v1/streaming/*'));
      expect(behaviour('/system/*')).toMatchObject({ TargetOriginId: 'media', Compress: true });
      expect(origin('media').OriginAccessControlId).toEqual(getAtt('CdnMediaOriginAccessControl', 'Id'));
      // Every origin but the bucket gets the origin secret (lib/origin.ts).
      for (const id of ['api', 'websocket', 'sse', 'sse-health']) expect(JSON.stringify(origin(id).OriginCustomHeaders)).toContain('X-Tootless-Origin');
    });

    it('maps the paths at the edge: the WebSocket to its stage, /system/<key> to the key, never federation/', () => {
      const code = template.Resources.CdnViewerRequestFunction!.Properties.FunctionCode as string;
      const handler = new Function(`${code}; return handler;`)() as (e: unknown) => { uri?: string; statusCode?: number; headers?: Record<string, { value: string }> };
      const run = (uri: string) => handler({ viewer: { ip: '192.0.2.5' }, request: { uri, headers: { host: { value: 'd1.cloudfront.net' }, 'x-tootless-viewer-ip': { value: 'forged' } } } });
      expect(run('/api/v1/streaming').uri).toBe('/prod');
      expect(run('/api/v1/streaming/user').uri).toBe('/api/v1/streaming/user');
      expect(run('/system/media_attachments/files/1/original/a.png').uri).toBe('/media_attachments/files/1/original/a.png');
      expect(run('/system/federation/inbox/x.json').statusCode).toBe(404);
      expect(run('/system/').statusCode).toBe(404);
      expect(run('/system/a/../federation/x').statusCode).toBe(404);
      expect(run('/system/..').statusCode).toBe(404);
      expect(run('/system/./federation/x').statusCode).toBe(404);
      const headers = run('/api/v1/timelines/home').headers!;
      expect(headers['x-tootless-viewer-ip']).toEqual({ value: '192.0.2.5' });
      expect(headers['x-tootless-viewer-host']).toEqual({ value: 'd1.cloudfront.net' });
    });

    it('publishes its URL for the functions (SSM, read with the secrets) and as the stack\'s outputs', () => {
      expect(template.Resources.CdnPublicUrl).toMatchObject({ Type: 'AWS::SSM::Parameter', Properties: { Name: '/tootless/prod/public-url', Type: 'String' } });
      expect(JSON.stringify(template.Resources.CdnPublicUrl!.Properties.Value)).toMatch(/CdnDistribution(\.|",")DomainName/);
      expect(JSON.stringify(template.Outputs!.BaseUrl!.Value)).toMatch(/CdnDistribution(\.|",")DomainName/);
      expect(JSON.stringify(template.Outputs!.StreamingUrl!.Value)).toContain('wss://');
      expect(JSON.stringify(template.Outputs!.MediaUrl!.Value)).toContain('/system');
    });
  });

  it.each([
    ['mail', 'MailQueue', 'MailDeadLetterQueue'],
    ['signin', 'SigninQueue', 'SigninDeadLetterQueue'],
    ['inbox', 'InboxQueue', 'InboxDeadLetterQueue'],
    ['deliver', 'DeliverQueue', 'DeliverDeadLetterQueue'],
    ['remote-media', 'RemoteMediaQueue', 'RemoteMediaDeadLetterQueue'],
    ['cards', 'CardsQueue', 'CardsDeadLetterQueue'],
    ['annual-report', 'AnnualReportQueue', 'AnnualReportDeadLetterQueue'],
  ])('defines the %s queue with a dead-letter queue after five receives', (queue, id, dlq) => {
    expect(template.Resources[id]).toMatchObject({
      Type: 'AWS::SQS::Queue',
      Properties: {
        QueueName: `tootless-prod-${queue}`,
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
      expect(fn.name).toBe(`tootless-prod-${key}`);
      expect(resource![1].Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: fn.handler });
      // The zip's central directory lists its file names uncompressed.
      const zip = join(prod.dir, `${key}.zip`);
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
      const target = join(root, `${workFolder}-prod`, 'load', file);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(join(root, `${workFolder}-prod`, '.build', file), target);
    }
    const script = `
      const results = {};
      for (const file of ${JSON.stringify(files)}) {
        try {
          const mod = await import(${JSON.stringify(join(root, `${workFolder}-prod`, 'load'))} + '/' + file);
          results[file] = typeof mod.handler;
        } catch (err) {
          results[file] = String(err && err.stack || err);
        }
      }
      process.stdout.write(JSON.stringify(results));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      // The stage a deployed function's environment always carries (serverless.yml); without it a function refuses to load.
      env: { PATH: process.env.PATH ?? '', STAGE: 'prod', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      // ~300 bundles of 300-900 kB, each compiled on import: over a minute on a busy 2-core machine.
      timeout: 480_000,
    });
    expect(run.status).toBe(0);
    const results = JSON.parse(run.stdout) as Record<string, string>;
    expect(results).toEqual(Object.fromEntries(files.map((f) => [f, 'function'])));
  }, 600_000);

  it('packs native externals for Linux on arm64 only', () => {
    for (const key of Object.keys(state.service.functions)) {
      const zip = readFileSync(join(prod.dir, `${key}.zip`));
      if (zip.includes(Buffer.from('node_modules/sharp/'))) {
        expect(zip.includes(Buffer.from('node_modules/@img/sharp-linux-arm64/'))).toBe(true);
        expect(zip.includes(Buffer.from('node_modules/@img/sharp-linux-x64/'))).toBe(false);
      }
      if (zip.includes(Buffer.from('node_modules/argon2/'))) {
        expect(zip.includes(Buffer.from('node_modules/argon2/prebuilds/linux-arm64/'))).toBe(true);
      }
    }
  });

  it('runs each worker from its queue, reporting failed messages alone, at a bounded concurrency', () => {
    for (const [fn, queue] of [['MailWorker', 'MailQueue'], ['SigninWorker', 'SigninQueue'], ['NotifyWorker', 'NotifyQueue'], ['FanoutWorker', 'FanoutQueue'], ['PushWorker', 'PushQueue'], ['InboxWorker', 'InboxQueue'], ['DeliverWorker', 'DeliverQueue'], ['RemoteMediaWorker', 'RemoteMediaQueue'], ['CardsWorker', 'CardsQueue'], ['AnnualReportWorker', 'AnnualReportQueue']] as const) {
      const mapping = ofType('AWS::Lambda::EventSourceMapping').find(([, r]) => JSON.stringify(r.Properties.FunctionName).includes(`${fn}LambdaFunction`));
      // prod's sizes (serverless.yml params.prod): the fan-out and delivery carry the posts' volume.
      const most = fn === 'FanoutWorker' ? 50 : fn === 'DeliverWorker' ? 100 : 20;
      expect(mapping?.[1].Properties).toMatchObject({ FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: most } });
      // The queue's ARN reaches the workers' nested stack as a parameter.
      expect(JSON.stringify(mapping?.[1].Properties.EventSourceArn)).toContain(queue);
    }
  });

  it('gives every queue a visibility timeout of at least six times its worker\'s timeout', () => {
    const resources = allResources(prod);
    for (const [fn, queue] of [['MailWorker', 'MailQueue'], ['SigninWorker', 'SigninQueue'], ['NotifyWorker', 'NotifyQueue'], ['FanoutWorker', 'FanoutQueue'], ['PushWorker', 'PushQueue'], ['InboxWorker', 'InboxQueue'], ['DeliverWorker', 'DeliverQueue'], ['RemoteMediaWorker', 'RemoteMediaQueue'], ['CardsWorker', 'CardsQueue'], ['AnnualReportWorker', 'AnnualReportQueue']] as const) {
      const timeout = resources[`${fn}LambdaFunction`]!.Properties.Timeout as number;
      expect(resources[queue]!.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
    }
  });

  it('gives every function the settings lib/config.ts reads, and no secret in its environment', () => {
    const [, fn] = ofType('AWS::Lambda::Function').find(([id]) => id === 'StreamingConnectLambdaFunction')!;
    const vars = fn.Properties.Environment.Variables;
    expect(vars).toMatchObject({
      STAGE: 'prod',
      TABLE_NAME: 'tootless-prod',
      MEDIA_BUCKET: { Ref: 'MediaBucket' },
      // The distribution's URL, read at run time (CdnPublicUrl): the environment cannot name it (a cycle).
      BASE_URL: '',
      STREAMING_URL: '',
      MEDIA_URL: '',
      ORIGIN_SECRET: '',
      QUEUE_MODE: 'sqs',
      QUEUE_URL_MAIL: { Ref: 'MailQueue' },
      QUEUE_URL_SIGNIN: { Ref: 'SigninQueue' },
      QUEUE_URL_INBOX: { Ref: 'InboxQueue' },
      QUEUE_URL_DELIVER: { Ref: 'DeliverQueue' },
      QUEUE_URL_REMOTEMEDIA: { Ref: 'RemoteMediaQueue' },
      QUEUE_URL_CARDS: { Ref: 'CardsQueue' },
      QUEUE_URL_ANNUALREPORT: { Ref: 'AnnualReportQueue' },
      FUNCTION_PREFIX: 'tootless-prod-',
      MAIL_TRANSPORT: 'ses',
      // Read at run time from SSM (lib/secrets.ts); nothing GetFunctionConfiguration could show.
      SECRETS_PATH: '/tootless/prod',
      SECRET_KEY_BASE: '',
      VAPID_PRIVATE_KEY: '',
      DEEPL_API_KEY: '',
      LIBRE_TRANSLATE_API_KEY: '',
    });
    // Frames go to the WebSocket API's own execute-api endpoint, whatever public host STREAMING_URL names.
    expect(vars.STREAMING_MANAGEMENT_URL).toEqual({
      'Fn::Join': ['', ['https://', { Ref: 'WebsocketsApi' }, '.execute-api.', { Ref: 'AWS::Region' }, '.amazonaws.com/prod']],
    });
  });

  it('grants item-level DynamoDB access to the table and its indexes only', () => {
    const statements: { Action: string[] | string; Resource: unknown }[] = template.Resources.FunctionBasePolicy!.Properties.PolicyDocument.Statement;
    const dynamo = statements.filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));
    expect(dynamo).toHaveLength(1);
    expect(dynamo[0]!.Action).not.toContain('dynamodb:Scan');
    expect(dynamo[0]!.Resource).toEqual([getAtt('Table', 'Arn'), { 'Fn::Join': ['', [getAtt('Table', 'Arn'), '/index/*']] }]);
  });

  it('lets only the mail worker send mail and only the media functions write media', () => {
    const roleOf = Object.fromEntries(
      ofType('AWS::Lambda::Function').map(([id, r]) => [id.replace(/LambdaFunction$/, ''), JSON.stringify(r.Properties.Role)]),
    );
    const using = (role: string) => Object.keys(roleOf).filter((fn) => roleOf[fn]!.includes(`"${role}`)).sort();
    expect(using('MailFunctionRole')).toEqual(['MailWorker']);
    expect(using('MediaFunctionRole')).toEqual(['AccountsUpdateCredentials', 'MediaCreate', 'MediaCreateV2', 'MediaDelete', 'ProfileDeleteAvatar', 'ProfileDeleteHeader', 'ProfileUpdate', 'StatusesDelete']);
    expect(using('WorkerFunctionRole')).toEqual(['AnnualReportWorker', 'DeliverWorker', 'FanoutWorker', 'InboxWorker', 'NotifyWorker', 'PushWorker', 'SigninWorker']);
    expect(using('InboxFunctionRole')).toEqual(['ActivitypubInbox', 'ActivitypubSharedInbox']);
    expect(using('RemoteMediaFunctionRole')).toEqual(['RemoteMediaWorker']);
    expect(using('CardsFunctionRole')).toEqual(['CardsWorker']);
    expect(using('FunctionRole')).toHaveLength(Object.keys(roleOf).length - 20);
    const policyText = (role: string) => JSON.stringify(template.Resources[role]!.Properties.Policies ?? []);
    for (const role of ['FunctionRole', 'MediaFunctionRole', 'WorkerFunctionRole']) expect(policyText(role)).not.toContain('ses:');
    for (const role of ['FunctionRole', 'MailFunctionRole', 'WorkerFunctionRole']) expect(policyText(role)).not.toContain('s3:PutObject');
    // The inbox endpoints may write only where they park large activities.
    expect(policyText('InboxFunctionRole')).toContain('"/federation/inbox/*"');
    // The remote media worker may write only where attachments and profile images are kept, and send no mail.
    expect(policyText('RemoteMediaFunctionRole')).toContain('"/media_attachments/*"');
    expect(policyText('RemoteMediaFunctionRole')).toContain('"/accounts/*"');
    expect(policyText('RemoteMediaFunctionRole')).not.toMatch(/ses:|"\/\*"/);
    // The cards worker may write only preview card images.
    expect(policyText('CardsFunctionRole')).toContain('"/preview_cards/*"');
    expect(policyText('CardsFunctionRole')).not.toMatch(/ses:|"\/\*"|media_attachments|accounts/);
    expect(JSON.stringify(template.Resources.FunctionBasePolicy)).not.toMatch(/ses:|s3:/);
  });

  it('reserves concurrency for the SSE streams', () => {
    const [, sse] = ofType('AWS::Lambda::Function').find(([id]) => id === 'StreamingEventsLambdaFunction')!;
    expect(sse.Properties.ReservedConcurrentExecutions).toBe(300);
  });

  it('reserves concurrency for the inbox functions: a flood of inbox POSTs never takes the API\'s share', () => {
    for (const name of ['ActivitypubInboxLambdaFunction', 'ActivitypubSharedInboxLambdaFunction']) {
      const [, inbox] = ofType('AWS::Lambda::Function').find(([id]) => id === name)!;
      expect(inbox.Properties.ReservedConcurrentExecutions).toBe(100);
    }
  });

  it('alarms on every dead-letter queue, background errors and throttles, HTTP API server errors', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    for (const dlq of ['MailDeadLetterQueue', 'SigninDeadLetterQueue', 'FanoutDeadLetterQueue', 'NotifyDeadLetterQueue', 'PushDeadLetterQueue', 'InboxDeadLetterQueue', 'DeliverDeadLetterQueue', 'RemoteMediaDeadLetterQueue', 'CardsDeadLetterQueue', 'AnnualReportDeadLetterQueue']) {
      expect(alarms.some(([, a]) => JSON.stringify(a.Properties.Dimensions ?? []).includes(`"${dlq}"`))).toBe(true);
    }
    const text = JSON.stringify(alarms);
    for (const metric of ['5xx', 'Errors', 'Throttles', 'WriteThrottleEvents', 'MessagesFailed']) expect(text).toContain(`"${metric}"`);
    // Every function fed by a queue or a schedule, and every streaming function, has its errors and throttles watched.
    const background = ofType('AWS::Lambda::Function')
      .map(([, r]) => r.Properties.FunctionName as string)
      .filter((name) => /Worker$|-sweeper$|-streaming[A-Z]/.test(name));
    expect(background).toHaveLength(16);
    for (const metric of ['Errors', 'Throttles']) {
      const watched = alarms.flatMap(([, a]) => (a.Properties.Metrics ?? []).filter((m: any) => m.MetricStat?.Metric.MetricName === metric)); // eslint-disable-line @typescript-eslint/no-explicit-any
      for (const name of background) expect(JSON.stringify(watched)).toContain(`"${name}"`);
    }
    for (const [, a] of alarms) expect(a.Properties.AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
  });

  it('routes the HTTP API to the apps functions and outputs the stack\'s URLs and names', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(routes).toEqual(expect.arrayContaining(['POST /api/v1/apps', 'GET /api/v1/apps/verify_credentials']));
    expect(Object.keys(template.Outputs!)).toEqual(expect.arrayContaining(['BaseUrl', 'StreamingUrl', 'TableName', 'MediaBucketName']));
  });
});

describe.each(['prod', 'main', FEATURE])('the %s stage, as CloudFormation and AWS would check it', (stage) => {
  const stack = () => packaged[stage]!;

  it('warns about nothing in the configuration (osls validates it, configValidationMode: error)', () => {
    const warnings = stack().output.match(/^\s+at '[^']+'/gm) ?? [];
    expect(warnings).toEqual([]);
    expect(stack().output).not.toMatch(/Invalid configuration/i);
  });

  it('splits into stacks of at most 500 resources, each template at most 1 MB and its nested templates all present', () => {
    const { root: rootTemplate, files } = stack();
    const nestedStacks = Object.entries(rootTemplate.Resources).filter(([, r]) => r.Type === 'AWS::CloudFormation::Stack');
    expect(nestedStacks.length).toBeGreaterThan(10);
    for (const [, nested] of nestedStacks) {
      const file = (nested.Properties.TemplateURL['Fn::Join'][1] as unknown[]).at(-1) as string;
      expect(files).toContain(file);
      // Every parameter the nested template declares is passed by the parent, and no other.
      expect(Object.keys(nested.Properties.Parameters).sort()).toEqual(Object.keys(stack().nested[file]!.Parameters ?? {}).sort());
    }
    expect(Object.keys(stack().nested)).toHaveLength(nestedStacks.length);
    for (const [file, t] of templatesOf(stack())) {
      expect([file, Object.keys(t.Resources).length <= MAX_RESOURCES]).toEqual([file, true]);
      expect([file, statSync(join(stack().dir, file)).size <= MAX_TEMPLATE_BYTES]).toEqual([file, true]);
    }
  });

  it('holds at most 60 dynamic references per template (none: secrets are read at run time)', () => {
    for (const [file, t] of templatesOf(stack())) {
      const references = JSON.stringify(t).match(/\{\{resolve:/g) ?? [];
      expect([file, references.length]).toEqual([file, 0]);
      expect(references.length).toBeLessThanOrEqual(MAX_DYNAMIC_REFERENCES);
    }
  });

  it('is sized for its stage: a branch reserves little of the account\'s concurrency, prod is sized for its load', () => {
    const resources = Object.values(allResources(stack()));
    const reserved = resources
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .reduce((sum, r) => sum + ((r.Properties.ReservedConcurrentExecutions as number | undefined) ?? 0), 0);
    const throttle = stack().root.Resources.HttpApiStage!.Properties.DefaultRouteSettings.ThrottlingRateLimit;
    // SSE plus the two inbox functions; the HTTP API's rate per route.
    const sizes: Record<string, [number, number]> = { prod: [300 + 2 * 100, 2000], main: [50 + 2 * 25, 100] };
    expect([reserved, throttle]).toEqual(sizes[stage] ?? [10 + 2 * 5, 50]);
  });

  it('runs every function on a runtime AWS still creates', () => {
    const functions = Object.values(allResources(stack())).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(100);
    for (const fn of functions) expect(SUPPORTED_RUNTIMES).toContain(fn.Properties.Runtime);
  });

  it('lets each function URL be invoked through the URL only, besides InvokeFunctionUrl', () => {
    for (const [, t] of templatesOf(stack())) {
      for (const [id, url] of Object.entries(t.Resources).filter(([, r]) => r.Type === 'AWS::Lambda::Url')) {
        const fn = JSON.stringify(url.Properties.TargetFunctionArn);
        const permissions = Object.values(t.Resources).filter((r) => r.Type === 'AWS::Lambda::Permission' && JSON.stringify(r.Properties.FunctionName) === fn);
        expect([id, permissions.map((p) => p.Properties.Action).sort()]).toEqual([id, ['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl']]);
        expect(permissions.find((p) => p.Properties.Action === 'lambda:InvokeFunction')!.Properties).toMatchObject({ Principal: '*', InvokedViaFunctionUrl: true });
      }
    }
  });

  it('grants nothing on `*` in any IAM policy', () => {
    const statements: { Action: unknown; Resource: unknown }[] = [];
    for (const r of Object.values(allResources(stack()))) {
      if (r.Type === 'AWS::IAM::ManagedPolicy') statements.push(...r.Properties.PolicyDocument.Statement);
      if (r.Type === 'AWS::IAM::Role') for (const p of r.Properties.Policies ?? []) statements.push(...p.PolicyDocument.Statement);
    }
    expect(statements.length).toBeGreaterThan(5);
    for (const s of statements) {
      for (const action of [s.Action].flat()) expect(action).not.toMatch(/^\*$|:\*$/);
      for (const resource of [s.Resource].flat()) expect(resource).not.toBe('*');
    }
  });

  it('passes cfn-lint with no errors, root and nested templates alike', () => {
    const lint = spawnSync('cfn-lint', ['--format', 'parseable', '--', ...stack().files], { cwd: stack().dir, encoding: 'utf8', timeout: 600_000 });
    if (lint.error) throw new Error(`cfn-lint is not installed (pip install cfn-lint, or Debian's cfn-lint package): ${lint.error.message}`);
    const errors = lint.stdout.split('\n').filter((line) => /:E\d{4}:/.test(line));
    expect(errors).toEqual([]);
  }, 600_000);
});

// The resource types moto's CloudFormation cannot create (it skips them silently, and a Ref or
// GetAtt to one comes out empty), each swapped for a WaitConditionHandle, which creates nothing;
// every reference to one becomes a placeholder of the shape AWS would give it.
const STAND_INS = [
  'AWS::ApiGatewayV2::Api',
  'AWS::ApiGatewayV2::Deployment',
  'AWS::ApiGatewayV2::Integration',
  'AWS::ApiGatewayV2::Route',
  'AWS::ApiGatewayV2::Stage',
  // The CloudFront distribution in front of the API and the media bucket (moto 5.2 has them in its
  // CloudFront API, not in its CloudFormation).
  'AWS::CloudFront::Distribution',
  'AWS::CloudFront::Function',
  'AWS::CloudFront::OriginAccessControl',
  'AWS::CloudWatch::Alarm',
  'AWS::Lambda::Url',
  'AWS::S3::BucketPolicy',
  'AWS::SNS::Subscription',
];
const STAND_IN = 'AWS::CloudFormation::WaitConditionHandle';
const MOTO_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };
const MOTO_REGION = 'us-east-1';
const ACCOUNT = '123456789012';

/** A 10-character lower-case id derived from a logical id, the shape of an API Gateway or CloudFront id. */
const placeholderId = (logicalId: string) => {
  let h = 0;
  for (const c of logicalId) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `${h.toString(36)}${logicalId.toLowerCase().replace(/[^a-z0-9]/g, '')}`.padEnd(10, '0').slice(0, 10);
};
/** What a Ref or a GetAtt to a stand-in resolves to: a string of the shape AWS would give. */
function placeholder(type: string, logicalId: string, attribute?: string): string {
  // A distribution's id is 14 upper-case characters starting with E; a CloudFront function's Ref is its ARN.
  const id = type === 'AWS::CloudFront::Distribution' ? `E${placeholderId(logicalId).toUpperCase()}ABC` : placeholderId(logicalId);
  const service = type.split('::')[1]!.toLowerCase();
  if (type === 'AWS::CloudFront::Function' && attribute === undefined) return placeholder(type, logicalId, 'FunctionARN');
  if (type === 'AWS::CloudFront::Function' && attribute === 'FunctionARN') return `arn:aws:cloudfront::${ACCOUNT}:function/${logicalId}`;
  if (attribute === undefined || attribute === 'Id' || attribute === 'ApiId') return id;
  if (/arn$/i.test(attribute)) return `arn:aws:${service}:${MOTO_REGION}:${ACCOUNT}:${logicalId}/${id}`;
  if (attribute === 'ApiEndpoint') return `https://${id}.execute-api.${MOTO_REGION}.amazonaws.com`;
  if (attribute === 'FunctionUrl') return `https://${id}${id}${id.slice(0, 12)}.lambda-url.${MOTO_REGION}.on.aws/`;
  if (attribute === 'DomainName') return `${id}.cloudfront.net`;
  throw new Error(`no placeholder for Fn::GetAtt ${logicalId}.${attribute} (${type}): give it one in placeholder()`);
}

/** The template with every STAND_INS resource swapped for a WaitConditionHandle, and every Ref, GetAtt and ${} to one for its placeholder. */
function withStandIns(source: Template): Template {
  const standIns = new Map(Object.entries(source.Resources).filter(([, r]) => STAND_INS.includes(r.Type)).map(([id, r]) => [id, r.Type]));
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    if (typeof obj.Ref === 'string' && standIns.has(obj.Ref)) return placeholder(standIns.get(obj.Ref)!, obj.Ref);
    const getAtt = obj['Fn::GetAtt'];
    if (getAtt !== undefined) {
      const [id, attribute] = typeof getAtt === 'string' ? (getAtt.split('.', 2) as [string, string]) : (getAtt as [string, string]);
      if (standIns.has(id)) return placeholder(standIns.get(id)!, id, attribute);
    }
    const sub = obj['Fn::Sub'];
    if (sub !== undefined) {
      const [text, vars] = typeof sub === 'string' ? [sub, undefined] : (sub as [string, unknown]);
      const replaced = text.replace(/\$\{([A-Za-z0-9]+)(?:\.([A-Za-z0-9.]+))?\}/g, (all, id: string, attribute?: string) =>
        standIns.has(id) ? placeholder(standIns.get(id)!, id, attribute) : all,
      );
      return { 'Fn::Sub': vars === undefined ? replaced : [replaced, rewrite(vars)] };
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, rewrite(v)]));
  };
  const resources = Object.fromEntries(
    Object.entries(source.Resources).map(([id, r]) => {
      if (!standIns.has(id)) return [id, rewrite(r)];
      return [id, { Type: STAND_IN, ...(r.Condition ? { Condition: r.Condition } : {}), ...(r.DependsOn ? { DependsOn: r.DependsOn } : {}) }];
    }),
  );
  return { ...(rewrite(source) as Template), Resources: resources as Template['Resources'] };
}

/** One request to moto, signed as the AWS CLI would sign it (moto tells the services apart by the credential scope). */
async function motoRequest(url: string, service: string, method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}) {
  const { host } = new URL(url);
  const signed = aws4.sign({ host, service, region: MOTO_REGION, method, path, body, headers }, MOTO_CREDENTIALS);
  const res = await fetch(`${url}${path}`, { method, headers: signed.headers as Record<string, string>, body });
  const text = await res.text();
  if (!res.ok) throw new Error(`${service} ${method} ${path.slice(0, 200)}: ${res.status} ${text.slice(0, 2000)}`);
  return text;
}
/** A CloudFormation query API call; its XML answer. */
const cloudFormation = (url: string, action: string, params: Record<string, string>) =>
  motoRequest(url, 'cloudformation', 'POST', '/', new URLSearchParams({ Action: action, Version: '2010-05-15', ...params }).toString(), {
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
  });
/** The <member> elements of an XML answer, each as its child elements' text. */
const members = (xml: string, list: string) =>
  [...(xml.match(new RegExp(`<${list}>([\\s\\S]*?)</${list}>`))?.[1] ?? '').matchAll(/<member>([\s\S]*?)<\/member>/g)].map((m) =>
    Object.fromEntries([...m[1]!.matchAll(/<(\w+)>([^<]*)<\/\1>/g)].map(([, k, v]) => [k, v])) as Record<string, string>,
  );
type StackSummary = { StackName: string; StackId: string; StackStatus: string; StackStatusReason?: string };
type StackResource = { LogicalResourceId: string; PhysicalResourceId?: string; ResourceType: string; ResourceStatus: string; ResourceStatusReason?: string };
const describeStacks = async (url: string) => members(await cloudFormation(url, 'ListStacks', {}), 'StackSummaries') as unknown as StackSummary[];
const stackResources = async (url: string, stack: string) =>
  members(await cloudFormation(url, 'ListStackResources', { StackName: stack }), 'StackResourceSummaries') as unknown as StackResource[];
/** Polls until no stack is in progress; every stack's summary. */
async function settledStacks(url: string): Promise<StackSummary[]> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const stacks = await describeStacks(url);
    if (!stacks.some((s) => s.StackStatus.endsWith('_IN_PROGRESS'))) return stacks;
    if (Date.now() > deadline) throw new Error(`stacks still in progress after 5 minutes: ${JSON.stringify(stacks.filter((s) => s.StackStatus.endsWith('_IN_PROGRESS')))}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

type Deployed = { stacks: StackSummary[]; resources: StackResource[]; failure?: string };

/**
 * Deploys a packaged stage into moto the way `serverless deploy` does: CreateStack with the
 * create-stack template (the ServerlessDeploymentBucket alone), the zips, nested templates and
 * root template uploaded into that bucket under the artifact folder the templates name, then
 * UpdateStack from the uploaded root template, whose nested stacks' TemplateURLs
 * (https://s3.<region>.amazonaws.com/<bucket>/<folder>/<file>) moto reads from its own S3.
 */
async function deployToMoto(url: string, p: Packaged, stackName: string): Promise<Deployed> {
  const read = (f: string) => JSON.parse(readFileSync(join(p.dir, f), 'utf8')) as Template;
  await cloudFormation(url, 'CreateStack', { StackName: stackName, TemplateBody: JSON.stringify(withStandIns(read('cloudformation-template-create-stack.json'))) });
  await settledStacks(url);
  const bucket = (await stackResources(url, stackName)).find((r) => r.LogicalResourceId === 'ServerlessDeploymentBucket')?.PhysicalResourceId;
  if (!bucket) throw new Error(`the create-stack template made no ServerlessDeploymentBucket in ${stackName}`);
  const [, [host, bucketRef, folder]] = Object.values(p.root.Resources).find((r) => r.Type === 'AWS::CloudFormation::Stack')!.Properties.TemplateURL['Fn::Join'] as [string, [string, unknown, string]];
  expect([host, bucketRef]).toEqual([`https://s3.${MOTO_REGION}.amazonaws.com`, { Ref: 'ServerlessDeploymentBucket' }]);
  const upload = (file: string, body: string | Buffer, type: string) => motoRequest(url, 's3', 'PUT', `/${bucket}/${folder}/${file}`, body, { 'content-type': type });
  for (const file of readdirSync(p.dir).filter((f) => f.endsWith('.zip'))) await upload(file, readFileSync(join(p.dir, file)), 'application/zip');
  for (const [file, t] of Object.entries(p.nested)) await upload(file, JSON.stringify(withStandIns(t)), 'application/json');
  await upload('compiled-cloudformation-template.json', JSON.stringify(withStandIns(p.root)), 'application/json');
  let failure: string | undefined;
  // moto creates every resource within the call: a resource it fails to create fails the call, naming it.
  await cloudFormation(url, 'UpdateStack', {
    StackName: stackName,
    TemplateURL: `${host}/${bucket}/${folder}/compiled-cloudformation-template.json`,
    'Capabilities.member.1': 'CAPABILITY_IAM',
    'Capabilities.member.2': 'CAPABILITY_NAMED_IAM',
  }).catch((err: Error) => (failure = err.message));
  const stacks = (await settledStacks(url)).filter((s) => s.StackName === stackName || s.StackName.startsWith(`${stackName}-`));
  const resources = (await Promise.all(stacks.map((s) => stackResources(url, s.StackId)))).flat();
  return { stacks, resources, failure };
}

describe('deploying into moto\'s CloudFormation', () => {
  let moto: Moto | undefined;

  beforeAll(async () => {
    moto = await startMoto();
  }, 90_000);

  afterAll(async () => {
    await stopMoto(moto);
  });

  it.each(['prod', FEATURE])('creates every stack of %s, root and nested, and every resource moto supports', async (stage) => {
    const p = packaged[stage]!;
    const stackName = `tootless-${stage}`;
    const result = await deployToMoto(moto!.url, p, stackName);
    const failing = result.resources.filter((r) => /FAILED/.test(r.ResourceStatus)).map((r) => `${r.LogicalResourceId} (${r.ResourceType}): ${r.ResourceStatusReason}`);
    expect([result.failure, failing]).toEqual([undefined, []]);
    // The root stack is created, then updated to the full template, as serverless deploys it; every nested stack is created.
    const nested = result.stacks.filter((s) => s.StackName !== stackName);
    expect(result.stacks.find((s) => s.StackName === stackName)?.StackStatus).toBe('UPDATE_COMPLETE');
    expect(nested).toHaveLength(Object.keys(p.nested).length);
    expect(nested.filter((s) => s.StackStatus !== 'CREATE_COMPLETE').map((s) => `${s.StackName}: ${s.StackStatus} ${s.StackStatusReason ?? ''}`)).toEqual([]);
    // moto skips a type it cannot create without a word, leaving no row: every resource not stood in (and not conditional) has its row.
    const listed = new Set(result.resources.map((r) => r.LogicalResourceId));
    const expected = templatesOf(p).flatMap(([, t]) => Object.entries(t.Resources)).filter(([, r]) => !STAND_INS.includes(r.Type) && !r.Condition);
    expect(expected.filter(([id]) => !listed.has(id)).map(([id, r]) => `${id}: ${r.Type} is not created by moto (add it to STAND_INS if moto lacks it)`)).toEqual([]);
    const conditional = templatesOf(p).flatMap(([, t]) => Object.entries(t.Resources)).filter(([id, r]) => r.Condition && listed.has(id));
    expect(result.resources.filter((r) => r.LogicalResourceId)).toHaveLength(expected.length + conditional.length);
    expect(expected.length).toBeGreaterThan(600);
  }, 300_000);

  it('stands in only for types moto cannot create', async () => {
    // A stack of one bare resource per stand-in type: a type moto supports fails on its missing properties or is listed.
    const supported: string[] = [];
    for (const [i, type] of STAND_INS.entries()) {
      const stackName = `stand-in-probe-${i}`;
      const body = JSON.stringify({ Resources: { Probe: { Type: type, Properties: {} } } });
      const created = await cloudFormation(moto!.url, 'CreateStack', { StackName: stackName, TemplateBody: body }).then(() => true, () => false);
      if (created) await settledStacks(moto!.url);
      if (!created || (await stackResources(moto!.url, stackName)).some((r) => r.LogicalResourceId === 'Probe')) supported.push(type);
    }
    expect(supported).toEqual([]);
    // And the stand-in itself is a type moto creates nothing for.
    expect(STAND_INS).not.toContain(STAND_IN);
  });
});

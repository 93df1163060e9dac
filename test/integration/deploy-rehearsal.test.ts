// The deploy rehearsal: `serverless package` for every kind of stage the deploy workflow
// produces (prod, main, a feature branch's), with no AWS credentials at all, then the
// checks CloudFormation and AWS would make at deploy time: resources, dynamic references
// and size per template, supported runtimes, function URL permissions, no IAM `*`,
// cfn-lint with zero errors on every template. prod is built in full and its bundles are
// loaded; the other stages' templates are built with unbundled handlers (only the
// templates are checked there).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
    { cwd: root, env, encoding: 'utf8', timeout: 420_000 },
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
}, 1_200_000);

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
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    const results = JSON.parse(run.stdout) as Record<string, string>;
    expect(results).toEqual(Object.fromEntries(files.map((f) => [f, 'function'])));
  });

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
    for (const [fn, queue] of [['MailWorker', 'MailQueue'], ['SigninWorker', 'SigninQueue'], ['NotifyWorker', 'NotifyQueue'], ['FanoutWorker', 'FanoutQueue'], ['PushWorker', 'PushQueue'], ['InboxWorker', 'InboxQueue'], ['DeliverWorker', 'DeliverQueue'], ['RemoteMediaWorker', 'RemoteMediaQueue'], ['CardsWorker', 'CardsQueue']] as const) {
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
    for (const [fn, queue] of [['MailWorker', 'MailQueue'], ['SigninWorker', 'SigninQueue'], ['NotifyWorker', 'NotifyQueue'], ['FanoutWorker', 'FanoutQueue'], ['PushWorker', 'PushQueue'], ['InboxWorker', 'InboxQueue'], ['DeliverWorker', 'DeliverQueue'], ['RemoteMediaWorker', 'RemoteMediaQueue'], ['CardsWorker', 'CardsQueue']] as const) {
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
      FUNCTION_PREFIX: 'tootless-prod-',
      MAIL_TRANSPORT: 'ses',
      // Read at run time from SSM (lib/secrets.ts); nothing GetFunctionConfiguration could show.
      SECRETS_PATH: '/tootless/prod',
      SECRET_KEY_BASE: '',
      VAPID_PRIVATE_KEY: '',
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
    expect(using('MediaFunctionRole')).toEqual(['AccountsUpdateCredentials', 'MediaCreate', 'MediaCreateV2', 'ProfileDeleteAvatar', 'ProfileDeleteHeader']);
    expect(using('WorkerFunctionRole')).toEqual(['DeliverWorker', 'FanoutWorker', 'InboxWorker', 'NotifyWorker', 'PushWorker', 'SigninWorker']);
    expect(using('InboxFunctionRole')).toEqual(['ActivitypubInbox', 'ActivitypubSharedInbox']);
    expect(using('RemoteMediaFunctionRole')).toEqual(['RemoteMediaWorker']);
    expect(using('CardsFunctionRole')).toEqual(['CardsWorker']);
    expect(using('FunctionRole')).toHaveLength(Object.keys(roleOf).length - 16);
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
    for (const dlq of ['MailDeadLetterQueue', 'SigninDeadLetterQueue', 'FanoutDeadLetterQueue', 'NotifyDeadLetterQueue', 'PushDeadLetterQueue', 'InboxDeadLetterQueue', 'DeliverDeadLetterQueue', 'RemoteMediaDeadLetterQueue', 'CardsDeadLetterQueue']) {
      expect(alarms.some(([, a]) => JSON.stringify(a.Properties.Dimensions ?? []).includes(`"${dlq}"`))).toBe(true);
    }
    const text = JSON.stringify(alarms);
    for (const metric of ['5xx', 'Errors', 'Throttles', 'WriteThrottleEvents', 'MessagesFailed']) expect(text).toContain(`"${metric}"`);
    // Every function fed by a queue or a schedule, and every streaming function, has its errors and throttles watched.
    const background = ofType('AWS::Lambda::Function')
      .map(([, r]) => r.Properties.FunctionName as string)
      .filter((name) => /Worker$|-sweeper$|-streaming[A-Z]/.test(name));
    expect(background).toHaveLength(15);
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

  it('warns about nothing in the configuration but the runtime Serverless v3 does not know', () => {
    const warnings = stack().output.match(/^\s+at '[^']+'/gm) ?? [];
    expect(warnings.map((w) => w.trim())).toEqual(["at 'provider.runtime'"]);
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

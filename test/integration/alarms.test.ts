// The alarms (infra/alarms.yml) against the functions that serverless.yml declares: every function no HTTP client
// waits on (a queue's worker, a scheduled function, a streaming function) has its failed and its throttled
// invocations watched, each metric math alarm within CloudWatch's 10 metrics; and a message that fails in a real
// worker writes the datum the message-failure alarm watches (an invocation reporting a failed message succeeds,
// so Lambda's own Errors never counts it). test/integration/deploy-rehearsal.test.ts checks the packaged template.
import { readdirSync, readFileSync } from 'node:fs';
import { CORE_SCHEMA, defineScalarTag, defineSequenceTag, load } from 'js-yaml';
import { sqsEvent } from '../../lib/queue';
import { FAILED_MESSAGES_METRIC, worker } from '../../lib/queue/worker';
import { METRICS_NAMESPACE } from '../../lib/metrics';

// CloudFormation's short tags (`!Ref`, `!GetAtt`), read as plain values: names and metrics are what matter here.
const schema = CORE_SCHEMA.withTags([
  defineScalarTag('!', { matchByTagPrefix: true, resolve: (s) => s, identify: () => false }),
  defineSequenceTag<unknown[]>('!', { matchByTagPrefix: true, create: () => [], addItem: (items, item) => void items.push(item), identify: () => false }),
]);
const yaml = (path: string) => load(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'), { schema });

type Dimension = { Name: string; Value: string };
type MetricStat = { Metric: { Namespace: string; MetricName: string; Dimensions: Dimension[] } };
type AlarmProps = { Namespace?: string; MetricName?: string; Dimensions?: Dimension[]; Metrics?: { Id: string; Expression?: string; MetricStat?: MetricStat }[]; Threshold: number };
type FunctionDecl = { events?: Record<string, unknown>[]; url?: unknown };

const alarms = Object.values((yaml('infra/alarms.yml') as { Resources: Record<string, { Type: string; Properties: AlarmProps }> }).Resources)
  .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
  .map((r) => r.Properties);

const functionsDir = new URL('../../functions/', import.meta.url);
const declared: Record<string, FunctionDecl & { group: string }> = {};
for (const group of readdirSync(functionsDir)) {
  let decls: Record<string, FunctionDecl>;
  try {
    decls = yaml(`functions/${group}/functions.yml`) as Record<string, FunctionDecl>;
  } catch {
    continue;
  }
  for (const [name, decl] of Object.entries(decls ?? {})) declared[name] = { ...decl, group };
}

/** Functions no HTTP client waits on: queue workers, scheduled functions, the streaming group (WebSocket and SSE). */
const background = Object.entries(declared)
  .filter(([, f]) => f.group === 'streaming' || (f.events ?? []).some((e) => 'sqs' in e || 'schedule' in e))
  .map(([name]) => name)
  .sort();

/** The function names whose Lambda metric `metricName` some alarm watches. */
function watched(metricName: string): string[] {
  const names: string[] = [];
  for (const alarm of alarms) {
    const stats = [...(alarm.Metrics ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : [])), ...(alarm.MetricName ? [alarm as MetricStat['Metric']] : [])];
    for (const m of stats) {
      if (m.Namespace !== 'AWS/Lambda' || m.MetricName !== metricName) continue;
      const fn = m.Dimensions.find((d) => d.Name === 'FunctionName')?.Value;
      if (fn) names.push(fn.replace('${self:service}-${sls:stage}-', ''));
    }
  }
  return names.sort();
}

describe('the alarms', () => {
  it('know the background functions: the ten queue workers, the sweeper and the streaming functions', () => {
    expect(background).toEqual(expect.arrayContaining(['inboxWorker', 'deliverWorker', 'remoteMediaWorker', 'cardsWorker', 'fanoutWorker', 'annualReportWorker', 'sweeper', 'streamingEvents', 'streamingConnect']));
    expect(background.filter((f) => f.endsWith('Worker'))).toHaveLength(10);
  });

  it("watch every background function's failed invocations", () => {
    expect(watched('Errors')).toEqual(background);
  });

  it("watch every background function's throttled invocations", () => {
    expect(watched('Throttles')).toEqual(background);
  });

  it('stay within 10 metrics per metric math alarm, each summed in its expression', () => {
    for (const alarm of alarms.filter((a) => a.Metrics)) {
      const stats = alarm.Metrics!.filter((m) => m.MetricStat);
      expect(stats.length).toBeLessThanOrEqual(10);
      const expression = alarm.Metrics!.find((m) => m.Expression)!.Expression!;
      expect(expression.split(' + ').sort()).toEqual(stats.map((m) => m.Id).sort());
    }
  });

  it('watch the failed messages of every queue, as a worker writes them', async () => {
    const alarm = alarms.find((a) => a.MetricName === FAILED_MESSAGES_METRIC)!;
    expect(alarm).toMatchObject({ Namespace: '${self:service}', Dimensions: [{ Name: 'Stage', Value: '${sls:stage}' }] });
    const service = (yaml('serverless.yml') as { service: string }).service;
    expect(METRICS_NAMESPACE).toBe(service);

    // A real worker whose message fails, its log lines captured as Lambda would ship them.
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const level = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'error';
    process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    let answer;
    try {
      answer = await worker('deliver', async () => {
        throw new Error('the table is throttled');
      })(sqsEvent('deliver', [{ activity: { id: 'https://social.example/a', type: 'Like' }, inbox: 'https://remote.example/inbox', signer: 'instance', attempt: 1 }]));
    } finally {
      process.stderr.write = write;
      process.env.LOG_LEVEL = level;
    }
    expect(answer.batchItemFailures).toHaveLength(1);
    const emf = lines.map((l) => JSON.parse(l)).filter((l) => l._aws);
    expect(emf).toHaveLength(1);
    const [line] = emf;
    // What CloudWatch extracts: MessagesFailed = 1 in the namespace, per stage (what the alarm watches) and per queue.
    expect(line._aws.CloudWatchMetrics).toEqual([
      { Namespace: service, Dimensions: [['Stage'], ['Stage', 'Queue']], Metrics: [{ Name: FAILED_MESSAGES_METRIC, Unit: 'Count' }] },
    ]);
    expect(typeof line._aws.Timestamp).toBe('number');
    expect(line).toMatchObject({ Stage: 'test', Queue: 'deliver', [FAILED_MESSAGES_METRIC]: 1, message: 'worker: message failed', stage: 'test' });
  });
});

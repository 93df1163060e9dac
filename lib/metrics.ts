// Metrics as CloudWatch's embedded metric format (EMF): fields that make one of the logger's JSON lines also a
// metric datum, which CloudWatch Logs extracts from a Lambda's log with no call, permission or resource of its own
// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
// A metric exists, and is billed, only in the hours something writes it. The alarms that watch these
// (infra/alarms.yml) name the same namespace, metric and dimensions.
import { config } from './config';

/** The namespace of the service's own metrics: the service's name, as `${self:service}` in serverless.yml. */
export const METRICS_NAMESPACE = 'tootless';

/**
 * The fields that make a log line a datum of metric `name` (a count), once per stack (dimension `Stage`, what
 * an alarm watches) and once per stack and `dimensions` (to see which queue, say).
 */
export function countFields(name: string, value: number, dimensions: Record<string, string>): Record<string, unknown> {
  const all = { Stage: config.stage, ...dimensions };
  return {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['Stage'], Object.keys(all)], Metrics: [{ Name: name, Unit: 'Count' }] }],
    },
    ...all,
    [name]: value,
  };
}

// One structured logger: JSON lines (CloudWatch in AWS, the terminal locally), written by Powertools for AWS
// Lambda's Logger. Every line carries the service, the stage and, once an entry point has called
// `logInvocation`, the Lambda request id, the function's name and whether it was a cold start, so an operator
// can find every line of one request. Warnings and errors go to stderr, the rest to stdout.
//
// Nothing secret is written: a field whose name says it holds a secret (a token, a password, a key, a cookie,
// an authorization header, an e-mail address) is replaced, and so is an e-mail address or a bearer token
// found in any string (an error message, a URL), whatever its field (`redact`).
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

// Read at each line, not once: tests and the operator CLI change it while running.
const threshold = (): number => order[(process.env.LOG_LEVEL as Level | 'silent') || 'info'] ?? 20;

export const REDACTED = '[redacted]';

/** Field names whose value is a secret or personal, whatever it looks like (compared lower-cased, letters only). */
const SECRET_FIELDS = new Set(['authorization', 'cookie', 'setcookie', 'apikey', 'privatekey', 'otp', 'codeverifier', 'bearer', 'emailaddress']);
const SECRET_ENDING = /(token|password|passwd|secret|email)$/;
const isSecretField = (key: string) => {
  const name = key.toLowerCase().replace(/[^a-z]/g, '');
  return SECRET_FIELDS.has(name) || SECRET_ENDING.test(name);
};
/** An e-mail address inside any string. */
const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
/** A bearer token, or an access token in a query string, inside any string. */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi;
const TOKEN_PARAM = /([?&](?:access_token|token|code|refresh_token)=)[^&#\s"]+/gi;

/** The logger's JSON replacer: what no log line may carry. */
export function redact(key: string, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (key !== '' && (typeof value === 'string' || typeof value === 'number') && isSecretField(key)) return REDACTED;
  if (typeof value === 'string') {
    return value.replace(EMAIL, REDACTED).replace(BEARER, `$1${REDACTED}`).replace(TOKEN_PARAM, `$1${REDACTED}`);
  }
  return value;
}

// The Logger prints every level it is given: the threshold above decides what reaches it.
const logger = new Logger({
  serviceName: 'tootless',
  logLevel: 'DEBUG',
  persistentKeys: { stage: process.env.STAGE ?? '' },
  jsonReplacerFn: redact,
});

/**
 * An entry point's first step for each invocation: its lines now carry this request's id, the function and
 * whether the container was cold. One invocation runs at a time in a Lambda container (and in the local
 * stack's function instances), so the context belongs to the container's logger until the next one.
 */
export function logInvocation(context: Context | undefined): void {
  if (context?.awsRequestId) logger.addContext(context);
}

/** `logInvocation` as a middy middleware (Powertools' own), for the entry points built on middy. */
export const logContext = () => ({ name: 'logContext', ...injectLambdaContext(logger) });

const write = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
  if (order[level] < threshold()) return;
  logger[level](msg, fields);
};

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};

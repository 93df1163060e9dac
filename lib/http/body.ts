// Request parsing: query string and body (JSON, form-urlencoded and multipart,
// all with Rails-style bracket notation such as `poll[options][]`) into one object.
import type { IParseOptions } from 'qs';
import parseQs from 'qs/lib/parse.js';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError, badRequest, tooLarge, unsupportedMediaType } from '../errors';
import { jsonNestsDeeper } from '../schema';
import { describeBytes, uploadSizeLimit } from './limits';

export type UploadedFile = {
  kind: 'file';
  filename: string;
  contentType: string;
  data: Buffer;
};

export const isUploadedFile = (value: unknown): value is UploadedFile =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'file' &&
  Buffer.isBuffer((value as { data?: unknown }).data);

const QS_OPTIONS: IParseOptions = { depth: 5, arrayLimit: 100, parameterLimit: 1000, allowDots: false };

export const parseQuery = (raw: string | undefined): Record<string, unknown> => (raw ? parseQs(raw, QS_OPTIONS) : {});

import { header } from './header';

export { header };

/** The body's bytes exactly as the client sent them (API Gateway may have base64-encoded them). */
export const rawBody = (event: APIGatewayProxyEventV2): Buffer =>
  event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);

export type BodyLimits = {
  /** The largest file a part may carry; a function is read on each request (a stage setting, lib/http/limits.ts). */
  maxFileBytes: number | (() => number);
  maxFiles: number;
};
/** No file larger than an upload can be reaches a function in AWS (lib/http/limits.ts): every endpoint refuses it as AWS would. */
export const DEFAULT_LIMITS: BodyLimits = { maxFileBytes: uploadSizeLimit, maxFiles: 4 };

export async function parseBody(event: APIGatewayProxyEventV2, limits: BodyLimits = DEFAULT_LIMITS): Promise<Record<string, unknown>> {
  const body = rawBody(event);
  if (body.length === 0) return {};
  const type = (header(event, 'content-type') ?? '').toLowerCase();
  if (type.startsWith('application/json') || type === '' || type.endsWith('+json')) {
    const text = body.toString('utf8');
    // Refused before it is parsed: whatever reads the value later (validation, logging, a write) may recurse over it.
    if (jsonNestsDeeper(text)) throw badRequest('Error occurred while parsing request parameters: nested too deeply');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest('Error occurred while parsing request parameters');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw badRequest('Error occurred while parsing request parameters');
    }
    return parsed as Record<string, unknown>;
  }
  if (type.startsWith('application/x-www-form-urlencoded')) return parseQs(body.toString('utf8'), QS_OPTIONS);
  if (type.startsWith('multipart/form-data')) return parseMultipart(body, header(event, 'content-type') ?? '', limits);
  throw unsupportedMediaType(`Unsupported content type: ${type.split(';')[0]}`);
}

/** What a multipart body may hold besides its files (`BodyLimits`); a field name's limit is busboy's default, which parsed these bodies before. */
const MULTIPART = { fields: 1000, fieldBytes: 1024 * 1024, nameBytes: 100 };

/**
 * A multipart body through the runtime's own parser (the fetch standard's `Response.formData()`,
 * undici's in Node), then the limits, checked part by part in the body's order: the first part
 * over one decides the answer. The whole body is in memory already (an API Gateway event), so
 * nothing is gained by stopping the parse early.
 */
async function parseMultipart(body: Buffer, contentType: string, limits: BodyLimits): Promise<Record<string, unknown>> {
  const maxFileBytes = typeof limits.maxFileBytes === 'function' ? limits.maxFileBytes() : limits.maxFileBytes;
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw badRequest('Error occurred while parsing request parameters');
  }
  const fields = new URLSearchParams();
  const files: Record<string, UploadedFile> = {};
  let [fieldCount, fileCount] = [0, 0];
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      if (++fieldCount > MULTIPART.fields) throw tooLarge('Too many form fields');
      if (Buffer.byteLength(name) > MULTIPART.nameBytes || Buffer.byteLength(value) > MULTIPART.fieldBytes) throw tooLarge('A form field is too large');
      fields.append(name, value);
    } else {
      if (++fileCount > limits.maxFiles) throw new HttpError(422, 'Too many files');
      if (value.size > maxFileBytes) throw tooLarge(`File is too large: the limit is ${describeBytes(maxFileBytes)}`);
      files[name] = { kind: 'file', filename: value.name || 'file', contentType: value.type, data: Buffer.from(await value.arrayBuffer()) };
    }
  }
  return { ...(parseQs(fields.toString(), QS_OPTIONS) as Record<string, unknown>), ...files };
}

/** Cookie header to a map (HTTP API v2 events put cookies in `cookies`). */
export function parseCookies(event: APIGatewayProxyEventV2): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = [...(event.cookies ?? []), ...((header(event, 'cookie') ?? '').split(';'))];
  for (const part of parts) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}

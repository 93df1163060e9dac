// Request parsing: query string and body (JSON, form-urlencoded and multipart,
// all with Rails-style bracket notation such as `poll[options][]`) into one object.
import Busboy from 'busboy';
import qs from 'qs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError, badRequest, tooLarge, unsupportedMediaType } from '../errors';
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

const QS_OPTIONS: qs.IParseOptions = { depth: 5, arrayLimit: 100, parameterLimit: 1000, allowDots: false };

export const parseQuery = (raw: string | undefined): Record<string, unknown> => (raw ? qs.parse(raw, QS_OPTIONS) : {});

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
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw badRequest('Error occurred while parsing request parameters');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw badRequest('Error occurred while parsing request parameters');
    }
    return parsed as Record<string, unknown>;
  }
  if (type.startsWith('application/x-www-form-urlencoded')) return qs.parse(body.toString('utf8'), QS_OPTIONS);
  if (type.startsWith('multipart/form-data')) return parseMultipart(body, header(event, 'content-type') ?? '', limits);
  throw unsupportedMediaType(`Unsupported content type: ${type.split(';')[0]}`);
}

function parseMultipart(body: Buffer, contentType: string, limits: BodyLimits): Promise<Record<string, unknown>> {
  const malformed = () => badRequest('Error occurred while parsing request parameters');
  const maxFileBytes = typeof limits.maxFileBytes === 'function' ? limits.maxFileBytes() : limits.maxFileBytes;
  return new Promise((resolve, reject) => {
    let bb: Busboy.Busboy;
    try {
      bb = Busboy({
        headers: { 'content-type': contentType },
        // busboy reports 'limit' when a file reaches `fileSize`, so a file of exactly the limit would be
        // refused: it is given one byte more, and 'limit' means the file is over the limit.
        limits: { fileSize: maxFileBytes + 1, files: limits.maxFiles, fields: 1000, fieldSize: 1024 * 1024, parts: 1100 },
      });
    } catch {
      reject(malformed());
      return;
    }
    const fields = new URLSearchParams();
    const files: Record<string, UploadedFile> = {};
    let failure: HttpError | undefined;
    // Every stream busboy hands out can fail (a body that ends inside a part fails
    // the part's stream as well as the parser): each gets a listener, and the
    // first failure settles the request. An unheard 'error' would be thrown
    // outside this promise and end the process.
    const fail = (err: HttpError) => {
      failure ??= err;
      reject(failure);
    };
    bb.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) failure ??= tooLarge('A form field is too large');
      else fields.append(name, value);
    });
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => {
        // busboy skips the rest of the part; the request fails once the body is read, before anything is stored.
        failure ??= tooLarge(`File is too large: the limit is ${describeBytes(maxFileBytes)}`);
      });
      stream.on('error', () => fail(malformed()));
      stream.on('end', () => {
        files[name] = { kind: 'file', filename: info.filename ?? 'file', contentType: info.mimeType, data: Buffer.concat(chunks) };
      });
    });
    bb.on('filesLimit', () => {
      failure ??= unprocessableFiles();
    });
    bb.on('fieldsLimit', () => {
      failure ??= tooLarge('Too many form fields');
    });
    bb.on('partsLimit', () => {
      failure ??= tooLarge('Too many form parts');
    });
    bb.on('error', () => fail(malformed()));
    bb.on('close', () => {
      if (failure) return reject(failure);
      const parsed = qs.parse(fields.toString(), QS_OPTIONS) as Record<string, unknown>;
      resolve({ ...parsed, ...files });
    });
    try {
      bb.end(body);
    } catch {
      fail(malformed());
    }
  });
}

const unprocessableFiles = () => new HttpError(422, 'Too many files');

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

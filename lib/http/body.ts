// Request parsing: query string and body (JSON, form-urlencoded and multipart,
// all with Rails-style bracket notation such as `poll[options][]`) into one object.
import Busboy from 'busboy';
import qs from 'qs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError, badRequest, tooLarge, unsupportedMediaType } from '../errors';

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

export const header = (event: APIGatewayProxyEventV2, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (k.toLowerCase() === wanted) return v;
  return undefined;
};

const rawBody = (event: APIGatewayProxyEventV2): Buffer =>
  event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);

export type BodyLimits = { maxFileBytes: number; maxFiles: number };
export const DEFAULT_LIMITS: BodyLimits = { maxFileBytes: 16 * 1024 * 1024, maxFiles: 4 };

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
  return new Promise((resolve, reject) => {
    let bb: Busboy.Busboy;
    try {
      bb = Busboy({
        headers: { 'content-type': contentType },
        limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fields: 1000, fieldSize: 1024 * 1024 },
      });
    } catch {
      reject(badRequest('Error occurred while parsing request parameters'));
      return;
    }
    const fields = new URLSearchParams();
    const files: Record<string, UploadedFile> = {};
    let failure: HttpError | undefined;
    bb.on('field', (name, value) => fields.append(name, value));
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => {
        failure ??= tooLarge('File is too large');
      });
      stream.on('end', () => {
        files[name] = { kind: 'file', filename: info.filename ?? 'file', contentType: info.mimeType, data: Buffer.concat(chunks) };
      });
    });
    bb.on('filesLimit', () => {
      failure ??= unprocessableFiles();
    });
    bb.on('error', () => reject(badRequest('Error occurred while parsing request parameters')));
    bb.on('close', () => {
      if (failure) return reject(failure);
      const parsed = qs.parse(fields.toString(), QS_OPTIONS) as Record<string, unknown>;
      resolve({ ...parsed, ...files });
    });
    bb.end(body);
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

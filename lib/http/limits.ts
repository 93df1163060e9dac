// How large a request the deployed path carries, and so how large a file an upload may be.
//
// In AWS a request reaches its function through API Gateway (HTTP API, payload 2.0) inside one
// synchronous Lambda invocation, whose payload (the whole event, as JSON) is limited to 6 MB. API
// Gateway passes a non-text body (multipart/form-data among them) base64-encoded, 4 bytes for every
// 3. A request over the limit never reaches the function: AWS answers it with an error of its own,
// not JSON. So the instance announces, and the function enforces, a file size whose request fits
// whatever the client puts around it; the local front server (infra/local/stream-front.ts) refuses
// what AWS would refuse, from the same numbers.
//
// This module imports nothing: the local front server loads it outside the functions' bundles.

/** Lambda's limit on a synchronous invocation's request payload (6 MB). */
export const LAMBDA_REQUEST_PAYLOAD_BYTES = 6_291_456;

/**
 * An upper bound on everything in the event besides the body's own characters.
 *
 * What the client controls is capped by API Gateway at 10,240 bytes for the request line and header
 * values together. Each of those bytes appears in the event at most twice (the path as `rawPath` and
 * `requestContext.http.path`, the query as `rawQueryString` and `queryStringParameters`, the
 * User-Agent as a header and `requestContext.http.userAgent`), and takes at most 6 bytes once
 * JSON-escaped (`\u00XX`; `"` and `\` take 2): 10,240 × 2 × 6 = 122,880 bytes.
 * Header names are outside that quota, and API Gateway adds headers of its own (X-Forwarded-For,
 * -Port, -Proto, X-Amzn-Trace-Id) and the fixed fields (`requestContext` with its ids, domain and
 * time, `routeKey`, `version`, the `"body":"..."` around the base64 text): 32,768 bytes for those.
 * 122,880 + 32,768 = 155,648.
 */
export const EVENT_ENVELOPE_BYTES = 10_240 * 2 * 6 + 32_768;

/**
 * The largest non-text body whose base64 text fits beside that envelope:
 * (6,291,456 − 155,648) = 6,135,808 bytes of base64 → 6,135,808 / 4 × 3 = 4,601,856 bytes.
 * A body up to this size reaches the function whatever the headers (within API Gateway's quota);
 * AWS may carry slightly more when the headers are small, but nothing any upload below needs.
 */
export const MAX_BINARY_BODY_BYTES = Math.floor((LAMBDA_REQUEST_PAYLOAD_BYTES - EVENT_ENVELOPE_BYTES) / 4) * 3;

/**
 * What a multipart upload carries around the file: a boundary line per part (at most 74 bytes with
 * its line break, RFC 2046) and the closing one, each part's headers (Content-Disposition with the
 * field and file names, Content-Type; a long UTF-8 file name is about 1 KB), and the other fields of
 * the media endpoints (`description`, at most 1,500 characters, 4,500 bytes of UTF-8; `focus`;
 * `thumbnail`, ignored). About 7 KB at worst; 16,384 bytes allowed.
 */
export const MULTIPART_FRAMING_BYTES = 16_384;

/** Left free for what the reckoning above does not know of (fields API Gateway may add to the event). */
export const SAFETY_MARGIN_BYTES = 65_536;

/**
 * The largest file one upload may be on any stage:
 * 4,601,856 − 16,384 (framing) − 65,536 (margin) = 4,519,936 bytes (4,414 KiB, about 4.3 MiB or 4.5 MB).
 * Announced as `configuration.media_attachments.image_size_limit` and `video_size_limit`, and
 * enforced while the multipart body is parsed (lib/http/body.ts).
 */
export const MAX_UPLOAD_BYTES = MAX_BINARY_BODY_BYTES - MULTIPART_FRAMING_BYTES - SAFETY_MARGIN_BYTES;

/**
 * The file size limit of this stage: `MEDIA_SIZE_LIMIT` (bytes) may lower it, never raise it past
 * MAX_UPLOAD_BYTES, which is what the deployed path carries at all: a larger setting is taken as the
 * maximum, and an unset, empty or unreadable one means the maximum. Read on each call, as lib/config.ts
 * reads its settings, so that tests can change it.
 */
export function uploadSizeLimit(): number {
  const setting = process.env.MEDIA_SIZE_LIMIT?.trim() ?? '';
  const wanted = Number(setting);
  if (setting === '' || !Number.isSafeInteger(wanted) || wanted <= 0) return MAX_UPLOAD_BYTES;
  return Math.min(wanted, MAX_UPLOAD_BYTES);
}

/** A byte count as people read it in an error message ("4519936 bytes, 4.3 MB"; MB of 1,048,576 bytes, as Mastodon counts). */
export const describeBytes = (bytes: number): string => `${bytes} bytes, ${Math.floor((bytes / 1_048_576) * 10) / 10} MB`;

/**
 * Lambda's limit on a synchronous invocation's response payload (6 MB): the whole result object as
 * JSON, `statusCode`, `headers` and the body as one JSON string. A larger result fails the invocation,
 * and API Gateway answers a 500 of its own in place of the page; compression cannot help, since the
 * limit applies before anything in front compresses.
 */
export const LAMBDA_RESPONSE_PAYLOAD_BYTES = 6_291_456;

/**
 * What a list's body may take of that payload, counted as it travels there (a JSON string inside the
 * result, so every `"` and `\` of the body counts twice): 5 MiB, leaving 1 MiB for the result's
 * other fields and headers (the Link header's carried parameters are bounded at about 40 KB by
 * lib/paging; CORS, rate-limit and the metrics headers are a few hundred bytes). A page over this is
 * shortened by size (./page.ts), so no list of statuses can fail as a whole because its items are large.
 */
export const PAGE_BODY_BUDGET_BYTES = 5 * 1_048_576;

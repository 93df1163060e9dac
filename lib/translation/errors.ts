// What a client is answered when the translation service fails, as Mastodon's TranslationsController answers
// (Api::V1::Statuses::TranslationsController, Api::BaseController): every failure is a 503, never a 500. The
// service refusing for its rate limit or its quota says so; an answer that makes no sense is Rack's bare
// "Service Unavailable"; a service that cannot be reached (refused connection, no answer in time, an address
// the outbound guard refuses) is "Remote data could not be fetched", as for any remote fetch. The cause is the
// operator's business: it goes to the log, not to the client.
import { HttpError } from '../errors';
import { log } from '../log';

/** The service answered 429 (TranslationService::TooManyRequestsError). */
export const tooManyRequests = (): HttpError => {
  log.warn('translation: the service asks us to slow down (429)');
  return new HttpError(503, 'There have been too many requests to the translation service recently.');
};

/** The service's quota is spent: DeepL's 456, LibreTranslate's 403 (TranslationService::QuotaExceededError). */
export const quotaExceeded = (): HttpError => {
  log.warn('translation: the service quota is exceeded');
  return new HttpError(503, 'The server-wide usage quota for the translation service has been exceeded.');
};

/** Any other status, a body that is not the service's JSON, too large, or too few translations (UnexpectedResponseError). */
export const unexpectedAnswer = (why: string): HttpError => {
  log.warn('translation: unexpected answer from the service', { why });
  return new HttpError(503, 'Service Unavailable');
};

/** No answer at all: a network error, the time limit, or the outbound guard refused the address. */
export const unreachable = (why: string): HttpError => {
  log.warn('translation: the service could not be reached', { why });
  return new HttpError(503, 'Remote data could not be fetched');
};

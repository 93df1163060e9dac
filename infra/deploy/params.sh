#!/usr/bin/env bash
# Prints the `--param` arguments of `serverless deploy` for a stage, one per line, from the
# environment the deploy workflow gives it (repository or environment variables), and fails,
# naming what is missing, when a required setting is not set.
#   MAIL_FROM            required: the sender of confirmation and password mail, an address
#                        of an SES-verified identity (SES refuses any other sender).
#   BASE_URL             required for prod: the instance's public URL (https://social.example);
#                        accounts are known by this domain for ever. Other stages default to
#                        their CloudFront distribution's own URL (infra/cdn.yml).
#   CERTIFICATE_ARN      an ACM certificate (us-east-1) for BASE_URL's host: the distribution then
#                        answers on that host (customDomain), which is also the streaming and media host.
#   LOCAL_DOMAIN         the domain in accounts' handles, when it is not BASE_URL's host.
#   STREAMING_URL        the public WebSocket URL, when BASE_URL is a custom domain
#                        (wss://streaming.social.example).
#   STREAMING_MANAGEMENT_URL  rarely: the WebSocket API's Management API endpoint, when it is
#                        not the API's own execute-api endpoint (the default).
#   MEDIA_URL            the public media URL (a CDN in front of the bucket).
#   ALARM_EMAIL          who the CloudWatch alarms mail.
set -euo pipefail
stage="${1:?usage: params.sh <stage>}"
missing=()
[ -n "${MAIL_FROM:-}" ] || missing+=("MAIL_FROM (an address of an SES-verified identity)")
if [ "$stage" = prod ] && [ -z "${BASE_URL:-}" ]; then missing+=("BASE_URL (the instance's public https URL, required for prod)"); fi
for url in BASE_URL STREAMING_URL STREAMING_MANAGEMENT_URL MEDIA_URL; do
  value="${!url:-}"
  case "$value" in
    '' | https://* | wss://*) ;;
    *) missing+=("$url as an https:// (or wss://) URL, not '$value'") ;;
  esac
done
if [ -n "${CERTIFICATE_ARN:-}" ] && [ -z "${BASE_URL:-}" ]; then missing+=("BASE_URL (CERTIFICATE_ARN is for BASE_URL's host)"); fi
case "${CERTIFICATE_ARN:-}" in '' | arn:aws*:acm:us-east-1:*) ;; *) missing+=("CERTIFICATE_ARN as an ACM certificate ARN in us-east-1 (CloudFront's region)") ;; esac
if [ "${#missing[@]}" -gt 0 ]; then
  for m in "${missing[@]}"; do echo "deploy parameter missing or invalid: $m" >&2; done
  exit 1
fi
emit() { [ -z "$2" ] || printf -- '--param=%s=%s\n' "$1" "$2"; }
emit mailFrom "$MAIL_FROM"
if [ -n "${CERTIFICATE_ARN:-}" ]; then
  # The distribution serves BASE_URL's host itself: one origin, so streaming and media follow it.
  host="${BASE_URL#https://}"
  host="${host%%/*}"
  emit customDomain "$host"
  emit certificateArn "$CERTIFICATE_ARN"
fi
emit baseUrl "${BASE_URL:-}"
emit localDomain "${LOCAL_DOMAIN:-}"
emit streamingUrl "${STREAMING_URL:-}"
emit streamingManagementUrl "${STREAMING_MANAGEMENT_URL:-}"
emit mediaUrl "${MEDIA_URL:-}"
emit alarmEmail "${ALARM_EMAIL:-}"

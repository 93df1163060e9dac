#!/usr/bin/env bash
# Prints the Serverless stage a branch deploys to (.github/workflows/deploy.yml).
#   main -> main, prod -> prod: the long-lived stages, from those exact branches only.
#   any other branch -> <slug>-<hash>: the branch name in lower case, [a-z0-9-], starting
#   with a letter, at most 13 characters, then 6 hex digits of the SHA-256 of the exact
#   branch name. The hash keeps apart branches whose slugs are equal (feature/Add-Login,
#   feature-add-login) and means no other branch can ever name main, prod or local.
# At most 20 characters, so that function, queue and bucket names fit AWS's limits.
set -euo pipefail
branch="${1:?usage: stage-name.sh <branch>}"
case "$branch" in
  main | prod) printf '%s\n' "$branch"; exit 0 ;;
esac
slug="$(printf '%s' "$branch" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-+//; s/-+$//')"
case "$slug" in [a-z]*) ;; *) slug="b-$slug" ;; esac
slug="$(printf '%s' "$slug" | cut -c1-13 | sed -E 's/-+$//')"
hash="$(printf '%s' "$branch" | sha256sum | cut -c1-6)"
printf '%s-%s\n' "$slug" "$hash"

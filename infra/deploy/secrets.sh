#!/usr/bin/env bash
# Creates a stage's secrets in SSM Parameter Store when missing (the deploy workflow runs
# it before every deploy), under /tootless/<stage>/:
#   secret-key-base     SecureString, 64 random bytes in hex: signs the login form's CSRF
#                       token and seals push subscription keys (lib/secrets.ts)
#   vapid-public-key    String: the Web Push public key, shown to browsers
#   vapid-private-key   SecureString: signs Web Push requests
# A parameter left as a plain String by an earlier deploy becomes a SecureString with
# the same value. Nothing is ever rotated here: a new VAPID pair orphans every push
# subscription, a new secret key base logs nobody out but voids sealed push keys.
set -euo pipefail
stage="${1:?usage: secrets.sh <stage>}"
prefix="/tootless/$stage"

type_of() { aws ssm describe-parameters --parameter-filters "Key=Name,Values=$1" --query 'Parameters[0].Type' --output text 2>/dev/null || true; }
secure() { # name, value
  aws ssm put-parameter --name "$1" --type SecureString --overwrite --value="$2" >/dev/null
}
harden() { # name: String -> SecureString, same value
  if [ "$(type_of "$1")" = String ]; then
    secure "$1" "$(aws ssm get-parameter --name "$1" --query Parameter.Value --output text)"
    echo "made $1 a SecureString"
  fi
}

name="$prefix/secret-key-base"
if [ "$(type_of "$name")" = None ] || [ -z "$(type_of "$name")" ]; then
  secure "$name" "$(openssl rand -hex 64)"
  echo "created $name"
else
  harden "$name"
fi

# The private key is written last, so a run that stopped halfway makes the next one start again.
if [ "$(type_of "$prefix/vapid-private-key")" = None ] || [ -z "$(type_of "$prefix/vapid-private-key")" ]; then
  keys="$(npx --no-install web-push generate-vapid-keys --json)"
  public="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).publicKey)' "$keys")"
  private="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).privateKey)' "$keys")"
  aws ssm put-parameter --name "$prefix/vapid-public-key" --type String --overwrite --value="$public" >/dev/null
  secure "$prefix/vapid-private-key" "$private"
  echo "created $prefix/vapid-public-key and $prefix/vapid-private-key"
else
  harden "$prefix/vapid-private-key"
fi

#!/usr/bin/env bash
# Creates a stage's secrets in SSM Parameter Store when missing (the deploy workflow runs
# it before every deploy), under /tootless/<stage>/:
#   secret-key-base     SecureString, 64 random bytes in hex: signs the login form's CSRF
#                       token and seals push subscription keys (lib/secrets.ts)
#   vapid-public-key    String: the Web Push public key, shown to browsers
#   vapid-private-key   SecureString: signs Web Push requests
#   origin-secret       SecureString, 32 random bytes in hex: the header the stage's distribution adds to
#                       every request it passes on (infra/cdn.yml, lib/origin.ts); the deploy passes it
#                       to CloudFormation as the originSecret parameter
# A parameter left as a plain String by an earlier deploy becomes a SecureString with
# the same value. Nothing is ever rotated here: a new VAPID pair orphans every push
# subscription, a new secret key base logs nobody out but voids sealed push keys.
# The deploy role needs ssm:DescribeParameters, GetParameter and PutParameter on them.
set -euo pipefail
stage="${1:?usage: secrets.sh <stage>}"
prefix="/tootless/$stage"

# The parameter's type, or None when it does not exist. An error (throttling, a missing permission)
# stops the script: taken for "missing", it would replace a live secret with a new one.
type_of() { aws ssm describe-parameters --parameter-filters "Key=Name,Option=Equals,Values=$1" --query 'Parameters[0].Type' --output text; }
# Creates, never replaces: without --overwrite SSM refuses a name that exists (ParameterAlreadyExists).
create() { # name, type, value
  aws ssm put-parameter --name "$1" --type "$2" --value="$3" >/dev/null
}
harden() { # name, its type: a String becomes a SecureString with the same value
  if [ "$2" = String ]; then
    value="$(aws ssm get-parameter --name "$1" --query Parameter.Value --output text)"
    aws ssm put-parameter --name "$1" --type SecureString --overwrite --value="$value" >/dev/null
    echo "made $1 a SecureString"
  fi
}

# A random SecureString, made once (name, bytes); an existing one is only hardened.
random_secret() {
  local type
  type="$(type_of "$1")"
  if [ "$type" = None ]; then
    create "$1" SecureString "$(openssl rand -hex "$2")"
    echo "created $1"
  else
    harden "$1" "$type"
  fi
}

random_secret "$prefix/secret-key-base" 64

public_type="$(type_of "$prefix/vapid-public-key")"
private_type="$(type_of "$prefix/vapid-private-key")"
if [ "$private_type" = None ]; then
  # No private key: the stage never sent a push (the functions refuse to run without all three
  # parameters), so a public key left by an interrupted run is replaced with the new pair.
  keys="$(npx --no-install web-push generate-vapid-keys --json)"
  public="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).publicKey)' "$keys")"
  private="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).privateKey)' "$keys")"
  aws ssm put-parameter --name "$prefix/vapid-public-key" --type String --overwrite --value="$public" >/dev/null
  # Written last, so a run that stopped halfway makes the next one start again.
  create "$prefix/vapid-private-key" SecureString "$private"
  echo "created $prefix/vapid-public-key and $prefix/vapid-private-key"
elif [ "$public_type" = None ]; then
  # A new pair would orphan every push subscription: the public key must be restored, not replaced.
  echo "::error::$prefix/vapid-private-key exists but $prefix/vapid-public-key does not; restore the public key of that pair" >&2
  exit 1
else
  harden "$prefix/vapid-private-key" "$private_type"
fi

random_secret "$prefix/origin-secret" 32

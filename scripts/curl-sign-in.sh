#!/usr/bin/env bash
# Signs a user in with nothing but curl and a cookie jar, exchanges the code in the spec's JSON
# shape, and prints GET /v2/core/me. Shows that the sign-in service needs no JavaScript.
#   scripts/curl-sign-in.sh [email] [password]
# Environment: PLATFORM_URL [http://127.0.0.1:4000], DATA_DIR [./data] (for the web client's secret),
# REDIRECT_URI [http://127.0.0.1:5173/auth/callback].
set -euo pipefail
email=${1:-investor@demo.test}
password=${2:-demo-password}
base=${PLATFORM_URL:-http://127.0.0.1:4000}
redirect=${REDIRECT_URI:-http://127.0.0.1:5173/auth/callback}
client_file=${DATA_DIR:-./data}/web-client.json
secret=$(sed -n 's/.*"client_secret": *"\([^"]*\)".*/\1/p' "$client_file")
jar=$(mktemp)
trap 'rm -f "$jar"' EXIT
c() { curl -sS -b "$jar" -c "$jar" "$@"; }
field() { sed -n "s/.*name=\"$1\" value=\"\([^\"]*\)\".*/\1/p" | sed 's/&amp;/\&/g' | head -n 1; }

state=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
authorize="$base/auth/login/oauth/authorize?client_id=asset-manager&redirect_uri=$(printf %s "$redirect" | sed 's/:/%3A/g; s#/#%2F#g')&state=$state&scope=full"

# 1. The sign-in page, with its CSRF token.
page=$(c "$authorize")
csrf=$(field csrf_token <<<"$page")
return_to=$(field return_to <<<"$page")
# 2. Sign in; 303 back to authorize.
c -o /dev/null --data-urlencode "csrf_token=$csrf" --data-urlencode "return_to=$return_to" \
  --data-urlencode "email=$email" --data-urlencode "password=$password" "$base/auth/login"
# 3. Consent (skipped by the platform when it was given before).
location=$(c -o /dev/null -w '%{redirect_url}' "$authorize")
if [ -z "$location" ]; then
  location=$(c -o /dev/null -w '%{redirect_url}' --data-urlencode "csrf_token=$csrf" -d client_id=asset-manager \
    --data-urlencode "redirect_uri=$redirect" -d "state=$state" -d scope=full -d decision=allow "$base/auth/login/oauth/authorize")
fi
code=$(sed -n 's/.*[?&]code=\([^&]*\).*/\1/p' <<<"$location")
[ -n "$code" ] || { echo "no code in the redirect: $location" >&2; exit 1; }
# 4. Token exchange in the spec's shape: JSON body, grant_type in the query.
tokens=$(c -X POST "$base/v2/core/oauth/token?grant_type=authorization_code" -H 'content-type: application/json' \
  -d "{\"client_id\":\"asset-manager\",\"client_secret\":\"$secret\",\"code\":\"$code\",\"state\":\"$state\"}")
access=$(sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p' <<<"$tokens")
[ -n "$access" ] || { echo "token exchange failed: $tokens" >&2; exit 1; }
# PRINT_TOKEN=1: hand the access token to a calling program (the benchmark) as well.
[ -z "${PRINT_TOKEN:-}" ] || echo "access_token=$access"
# 5. Use the token.
c "$base/v2/core/me" -H "Authorization: Bearer $access"
echo

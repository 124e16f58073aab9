#!/bin/sh
# Writes the secret files deploy/compose.yaml mounts (deploy/secrets/), each random, and leaves any that exists
# alone: run it once, keep the directory safe (losing hub_encryption_keys makes every stored token unreadable).
#   deploy/compose-secrets.sh              then put your Google client secret in deploy/secrets/google_client_secret
#   deploy/compose-secrets.sh --sandbox    the Google sandbox's public client secret instead (offline trial only)
set -eu
dir="$(dirname "$0")/secrets"
mkdir -p "$dir"
chmod 700 "$dir"
put() { # name, value: only when the file does not exist yet
  if [ ! -e "$dir/$1" ]; then
    printf '%s\n' "$2" >"$dir/$1"
    # readable by the containers' users; the 0700 directory keeps the host's other users out
    chmod 644 "$dir/$1"
    echo "wrote $dir/$1"
  fi
}
put postgres_password "$(openssl rand -hex 24)"
put redis_password "$(openssl rand -hex 24)"
put database_url "postgres://hub:$(cat "$dir/postgres_password")@postgres:5432/hub"
put redis_url "redis://:$(cat "$dir/redis_password")@redis:6379"
put redis_config "requirepass $(cat "$dir/redis_password")"
put hub_service_secrets "$(openssl rand -hex 32)"
put hub_encryption_keys "k1:$(openssl rand -base64 32)"
put hub_admin_jwt_secret "$(openssl rand -hex 32)"
if [ "${1:-}" = "--sandbox" ]; then
  put google_client_secret "GOCSPX-sandbox-client-secret"
elif [ ! -e "$dir/google_client_secret" ]; then
  echo "now write your Google OAuth client secret to $dir/google_client_secret" >&2
fi

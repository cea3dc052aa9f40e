#!/bin/sh
# Run once by the postgres image on an empty data directory
# (/docker-entrypoint-initdb.d): one login role per service, owning the schema
# of the same name. A role may connect to the database and use its own schema
# only: it cannot create schemas, and no role has any right on another's
# schema. LISTEN/NOTIFY needs no rights (payins listens to merchants' announcements).
set -eu
for service in identity merchants payins allocation; do
  variable="$(echo "$service" | tr '[:lower:]' '[:upper:]')_DB_PASSWORD"
  password="$(printenv "$variable" || true)"
  if [ -z "$password" ]; then
    echo "init-roles: $variable is not set" >&2
    exit 1
  fi
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v service="$service" -v password="$password" <<'SQL'
create role :"service" login password :'password';
create schema :"service" authorization :"service";
grant connect on database :"DBNAME" to :"service";
SQL
done
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
revoke all on database :"DBNAME" from public;
revoke create on schema public from public;
SQL

#!/usr/bin/env bash
# Runs the README's commands as a reader would: npm start on an empty store, the printed curl,
# the add-an-animal curl, and every CLI example. Fails on the first command that fails.
set -euo pipefail
cd "$(dirname "$0")/.."

# grep -q stops reading at the first match; the command writing into it may then fail on the
# closed pipe (curl: exit 23), which pipefail reports as the step failing. This reads it all.
has() { grep "$@" >/dev/null; }

export DATA_DIR
DATA_DIR=$(mktemp -d)
export PORT=${SMOKE_PORT:-18181}
log=$(mktemp)
cleanup() {
  # npm start runs the server as a child: stop the whole process group.
  [ -n "${server:-}" ] && kill -TERM -- "-$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  rm -rf "$DATA_DIR" "$log"
}
trap cleanup EXIT

setsid npm start >"$log" 2>&1 &
server=$!
for _ in $(seq 1 100); do
  has '^  curl ' "$log" && break
  sleep 0.1
done
printed=$(grep '^  curl ' "$log" | sed 's/^  //') || { cat "$log"; echo "smoke: npm start printed no curl" >&2; exit 1; }
KEY=$(grep -o 'as_live_[A-Za-z0-9_]*' "$log" | head -1)

echo "smoke: $printed"
[ "$(bash -c "$printed")" = "[]" ]
has "^API reference: http://127.0.0.1:$PORT/docs" "$log"
curl -s "http://127.0.0.1:$PORT/" | has '"docs":"/docs"'

added=$(curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d '{"name":"Rex","categoryId":1}' "http://127.0.0.1:$PORT/v1/pets")
echo "smoke: added $added"
echo "$added" | has '"name":"Rex"'

ordered=$(curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d '{"petId":1}' "http://127.0.0.1:$PORT/v1/store/orders")
echo "smoke: ordered $ordered"
echo "$ordered" | has '"status":"placed"'
curl -s -X POST -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/store/orders/1/approve" | has '"status":"approved"'
curl -s -X PATCH -H "Authorization: Bearer $KEY" -H 'Content-Type: application/merge-patch+json' \
  -d '{"name":"Rexi"}' "http://127.0.0.1:$PORT/v1/pets/1" | has '"name":"Rexi"'
curl -s -X DELETE -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/pets/1" | has '"code":"pet_has_open_order"'

# Profiles, the search and the change feed.
curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d '{"name":"Luna","categoryId":1,"breeds":{"primary":"Labrador Retriever","mixed":true},"sex":"female","age":"young","size":"large","goodWith":{"children":"yes","cats":"no"},"description":"A gentle, playful girl.","tags":["calm"]}' \
  "http://127.0.0.1:$PORT/v1/pets" | has '"goodWith":{"children":"yes","cats":"no"}'
curl -s -D - -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/pets?q=gentle&sex=female&goodWithChildren=yes&sort=-createdAt&count=true" | has -i '^x-total-count: 1'
curl -s -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/pets/changes?limit=100" | has '"type":"changed"'
curl -s -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/categories/1/breeds" | has '"name":"Labrador Retriever"'
# A photo of Luna (animal 2), as the README uploads it, then its smallest file, without a key.
node -e "require('sharp')({create:{width:640,height:480,channels:3,background:'#c08040'}}).jpeg().toFile(process.argv[1])" "$DATA_DIR/luna.jpg"
(cd "$DATA_DIR" && curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: image/jpeg' \
  --data-binary @luna.jpg "http://127.0.0.1:$PORT/v1/pets/2/photos") >"$DATA_DIR/photo.json"
echo "smoke: photo $(head -c 200 "$DATA_DIR/photo.json")"
photo_url=$(node -e "process.stdout.write(JSON.parse(require('fs').readFileSync(process.argv[1],'utf8')).variants.webp[0].url)" "$DATA_DIR/photo.json")
curl -s -D - -o /dev/null "$photo_url" | has -i '^cache-control: public, max-age=31536000, immutable'
curl -s -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/pets/2" | has '"photos":\[{'
# The adoption site, as the README shows it: Luna is available (Rex has an open order).
curl -s "http://127.0.0.1:$PORT/sites/default/" | has '<h2>Luna</h2>'
echo "smoke: README profile, search, photo and site commands passed"

# Data commands, through the client.
export ADOPTION_STORE_URL="http://127.0.0.1:$PORT/v1" ADOPTION_STORE_KEY="$KEY"
pet=$(npx adoption-store pets create Rex --category 1 --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(String(JSON.parse(s).id)))")
npx adoption-store pets list --status available --limit 50 --json >/dev/null
npx adoption-store pets get "$pet" --json | has '"name": *"Rex"'
npx adoption-store pets update "$pet" --name Rexi --category 2 --json | has '"name": *"Rexi"'
spare=$(npx adoption-store pets create Spare --category 1 --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(String(JSON.parse(s).id)))")
npx adoption-store pets delete "$spare" --json | has '"removed": *true'
order=$(npx adoption-store orders create "$pet" --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(String(JSON.parse(s).id)))")
npx adoption-store orders list --status placed --json | has "\"id\": *$order"
npx adoption-store orders get "$order" --json >/dev/null
npx adoption-store orders approve "$order" --json | has approved
npx adoption-store orders deliver "$order" --json | has delivered
# A delivered order cannot be cancelled: one line on stderr, exit status 1.
if refused=$(npx adoption-store orders cancel "$order" 2>&1); then echo "smoke: cancel of a delivered order succeeded" >&2; exit 1; fi
echo "$refused" | has invalid_transition
unset ADOPTION_STORE_URL ADOPTION_STORE_KEY
echo "smoke: README data commands passed"

npx adoption-store migrate --json
npx adoption-store projects create acme --plan pro --json
npx adoption-store projects create bigco --plan enterprise --per-minute 5000 --per-day 2000000
npx adoption-store projects list --json
npx adoption-store projects set-plan acme business --json
npx adoption-store projects create old-shelter --json
# An export: to a file, or to stdout through a pipe; both are gzip-compressed tar archives ending with manifest.json.
npx adoption-store projects export old-shelter --out "$DATA_DIR/old-shelter.tar.gz"
tar -tzf "$DATA_DIR/old-shelter.tar.gz" | has '^manifest.json$'
npx adoption-store projects export old-shelter --out - | tar -tz | has '^animals.jsonl$'
# Without --yes and without a terminal, a deletion is refused: one line on stderr, exit status 1.
if refused=$(npx adoption-store projects delete old-shelter </dev/null 2>&1); then echo "smoke: projects delete without --yes succeeded" >&2; exit 1; fi
echo "$refused" | has -- "--yes"
npx adoption-store projects delete old-shelter --yes --json | has '"slug": "old-shelter"'
npx adoption-store keys create --project acme --name ci --expires-in 90d --json | tee "$DATA_DIR/key.json"
id=$(node -e "process.stdout.write(JSON.parse(require('fs').readFileSync('$DATA_DIR/key.json','utf8')).id)")
npx adoption-store keys list --project acme --json
npx adoption-store keys revoke "$id"
npx adoption-store projects list
npx adoption-store audit list --project acme --action key.revoked --json | has "\"id\": *\"$id\""
npx adoption-store audit list --since 2026-11-25T00:00:00Z --until 2099-01-01T00:00:00Z --limit 100 >/dev/null
# The /v1 writes above are in the audit log with the key that made them.
first_key=$(npx adoption-store keys list --project default --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(JSON.parse(s)[0].id))")
npx adoption-store audit list --actor-kind api_key --key "$first_key" --json | has '"action": *"pet.created"'
# Dashboard accounts: a generated password signs in on the running server; the page is served.
password=$(npx adoption-store users create --email ops@example.com --role operator --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(JSON.parse(s).password))")
npx adoption-store users create --email ann@example.com --role owner --project acme
npx adoption-store users create --email vol@example.com --role viewer --project acme --json | has '"role": *"viewer"'
PASSWORD='a long pass phrase for bob'
printf '%s\n' "$PASSWORD" | npx adoption-store users create --email bob@example.com --role operator --password-stdin
npx adoption-store users list --json | has '"email": *"ann@example.com"'
# The generated password is a one-time password: it opens no session until the sign-in also
# sends a password of one's own, which replaces it.
curl -s -H 'Content-Type: application/json' -d "{\"email\":\"ops@example.com\",\"password\":\"$password\"}" \
  "http://127.0.0.1:$PORT/admin/v1/session" | has '"code":"password_change_required"'
curl -sf -H 'Content-Type: application/json' -d "{\"email\":\"ops@example.com\",\"password\":\"$password\",\"newPassword\":\"the operator's own pass phrase\"}" \
  "http://127.0.0.1:$PORT/admin/v1/session" | has '"role":"operator"'
npx adoption-store users set-projects ann@example.com --project acme --project bigco --json | has '"bigco"'
npx adoption-store users disable ann@example.com --json | has '"state": *"disabled"'
npx adoption-store users enable ann@example.com --json | has '"state": *"enabled"'
npx adoption-store users reset-password ann@example.com --json | has '"password": *"[A-Za-z0-9_-]\{24\}"'
npx adoption-store users delete ann@example.com --json | has '"email": *"ann@example.com"'
if npx adoption-store users list --json | has '"ann@example.com"'; then echo "smoke: a deleted user is still listed" >&2; exit 1; fi
curl -sf "http://127.0.0.1:$PORT/dashboard/" | has '<script type="module"'
echo "smoke: README user commands and the dashboard passed"
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null
curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null
# Custom domains (the CLI side; DNS is asked of a closed loopback port: the service's resolvers do
# not answer, so verify must fail saying so, and the domain stays pending).
(
  export PLATFORM_DOMAIN=platform.example PLATFORM_DNS_TARGET=edge.platform.example DNS_RESOLVERS=127.0.0.1:9
  npx adoption-store domains add shop.example.com --project acme | has 'CNAME *shop *edge.platform.example *3600'
  npx adoption-store domains add www.example.com --project acme >/dev/null
  if verify=$(npx adoption-store domains verify shop.example.com --project acme 2>&1); then echo "smoke: verify without DNS succeeded" >&2; exit 1; fi
  printf '%s\n' "$verify" | has "the service's DNS resolvers do not answer"
  npx adoption-store domains list --project acme --json | has '"state": *"pending"'
  npx adoption-store domains set-primary shop.example.com --project acme >/dev/null
  npx adoption-store domains add-redirect www.example.com shop.example.com --project acme >/dev/null
  npx adoption-store domains remove-redirect www.example.com --project acme >/dev/null
  npx adoption-store domains remove shop.example.com --project acme >/dev/null
  echo "smoke: README domain commands passed"
)
# Webhooks (the CLI side). The server runs without a sealing key, so it sends nothing; the
# endpoint is disabled before its test event anyway: nothing leaves this machine.
(
  WEBHOOK_ENCRYPTION_KEY=$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('hex'))")
  export WEBHOOK_ENCRYPTION_KEY
  hook=$(npx adoption-store webhooks add --project acme --url https://hooks.example.com/adoption --types pet.created,order.placed --json \
    | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const e=JSON.parse(s);if(!e.secret.startsWith('whsec_'))process.exit(1);process.stdout.write(e.id)})")
  npx adoption-store webhooks list --project acme --json | has "\"id\": *\"$hook\""
  npx adoption-store webhooks update "$hook" --project acme --types '*' --disable --json | has '"enabled": *false'
  npx adoption-store webhooks rotate-secret "$hook" --project acme --overlap-hours 24 --json | has '"secret": *"whsec_'
  delivery=$(npx adoption-store webhooks test "$hook" --project acme --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(String(JSON.parse(s).id)))")
  npx adoption-store webhooks deliveries "$hook" --project acme --limit 20 --json | has '"eventType": *"webhook.test"'
  npx adoption-store webhooks deliveries "$hook" --project acme --state failed --since 2026-11-27T00:00:00Z --type webhook.test --json | has '^\['
  npx adoption-store webhooks attempts "$hook" "$delivery" --project acme --json | has '^\['
  npx adoption-store webhooks redeliver "$hook" "$delivery" --project acme --json | has '"manual": *true'
  npx adoption-store webhooks update "$hook" --project acme --enable --json | has '"enabled": *true'
  since=$(node -e "process.stdout.write(new Date(Date.now() - 86400000).toISOString())")
  npx adoption-store webhooks events --project acme --limit 20 --json | has '"type": *"webhook.test"'
  npx adoption-store webhooks events --project acme --type webhook.test --since "$since" --json | has '"id": *"msg_'
  npx adoption-store webhooks recover "$hook" --project acme --since "$since" --json | has '"queued": *[0-9]'
  npx adoption-store webhooks replay "$hook" --project acme --since "$since" --json | has '"queued": *[0-9]'
  npx adoption-store webhooks update "$hook" --project acme --description "shop backend" >/dev/null
  npx adoption-store webhooks remove "$hook" --project acme --json | has '"removed": *true'
  npx adoption-store webhooks reseal --json | has '"unopenable": *\[\]'
  npx adoption-store projects set-webhook-private-networks acme on --json | has '"webhookPrivateNetworks": *true'
  npx adoption-store projects set-webhook-private-networks acme off --json | has '"webhookPrivateNetworks": *false'
  npx adoption-store audit list --project acme --action webhook.created --json | has "\"id\": *\"$hook\""
  echo "smoke: README webhook commands passed"
)
# Animals from and to files, locations and categories (on the store).
npx adoption-store locations add "Main shelter" --project acme --address "123 Main St" --city Springfield --country US --latitude 39.78 --longitude -89.65 --json | has '"latitude": *39.78'
npx adoption-store locations list --project acme --json | has '"name": *"Main shelter"'
npx adoption-store locations update 1 --project acme --postal-code 62701 --json | has '"postalCode": *"62701"'
npx adoption-store categories set 300 "Guinea pig" --project acme --breeds "Teddy, Abyssinian" --json | has '"addedBreeds"'
npx adoption-store categories list --project acme --json | has '"name": *"Guinea pig"'
printf 'ID,AnimalName,Type,Sex,Size,Age,PrimaryBreed,location\nA-1,Rex,Dog,M,L,Adult,Labrador Retriever,Main shelter\nA-2,Mia,Cat,F,S,Young,Siamese,\n' >"$DATA_DIR/animals.csv"
npx adoption-store pets import --project acme --file "$DATA_DIR/animals.csv" --dry-run | has 'would add 2'
npx adoption-store pets import --project acme --file "$DATA_DIR/animals.csv" --json | has '"created": *2'
npx adoption-store pets import --project acme --file "$DATA_DIR/animals.csv" | has 'added 0, changed 0, 2 unchanged'
npx adoption-store pets export --project acme --format csv --output "$DATA_DIR/export.csv"
has '^id,externalId,name,categoryId' "$DATA_DIR/export.csv"
npx adoption-store pets export --project acme --format json | has '"externalId": *"A-1"\|"externalId":"A-1"'
node -e "require('sharp')({create:{width:300,height:200,channels:3,background:'#4080c0'}}).png().toFile(process.argv[1])" "$DATA_DIR/luna-2.png"
acme_pet=$(npx adoption-store pets export --project acme --format json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(String(JSON.parse(s)[0].id)))")
npx adoption-store pets photos add "$acme_pet" "$DATA_DIR/luna.jpg" "$DATA_DIR/luna-2.png" --project acme --json | has '"width": *300'
npx adoption-store media verify --json | has '"orphans": *\[\]'
if npx adoption-store locations remove 1 --project acme 2>/dev/null; then echo "smoke: a location with animals was removed" >&2; exit 1; fi
npx adoption-store categories remove 300 --project acme --json >/dev/null
echo "smoke: README file, location and category commands passed"
# The development command the README names: the committed validator is what it writes.
committed=$(cat src/config-validator.ts)
npm run --silent config:validator >/dev/null
[ "$(cat src/config-validator.ts)" = "$committed" ] || { echo "smoke: npm run config:validator changed src/config-validator.ts" >&2; exit 1; }
echo "smoke: README commands passed"

# The benchmark and the soak, briefly: their harnesses run end to end on a fresh clone (the full
# runs, minutes long, are on demand). Both also drive PostgreSQL + Redis when the suite has them.
BENCH_DATABASE_URL=${TEST_DATABASE_URL:-} BENCH_REDIS_URL=${TEST_REDIS_URL:-} BENCH_QUICK=1 npm run bench
BENCH_DATABASE_URL=${TEST_DATABASE_URL:-} BENCH_REDIS_URL=${TEST_REDIS_URL:-} SOAK_MINUTES=0.25 npm run soak
echo "smoke: npm run bench and npm run soak passed"

# The scale-out section, against the PostgreSQL and Redis the suite uses, when there are some.
if [ -n "${TEST_DATABASE_URL:-}" ] && [ -n "${TEST_REDIS_URL:-}" ]; then
  db="adoption_store_smoke_$$"
  psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $db"
  trap 'cleanup; [ -n "${scaled:-}" ] && kill -TERM -- "-$scaled" 2>/dev/null; sleep 0.5; psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)"' EXIT
  export DATABASE_URL="${TEST_DATABASE_URL%/*}/$db"
  export REDIS_URL="$TEST_REDIS_URL" REDIS_KEY_PREFIX="adoption-store-smoke-$$:"
  export HOST=127.0.0.1 TRUST_PROXY=10.0.0.0/8 PORT=$((PORT + 1))
  npx adoption-store migrate
  npx adoption-store projects create shelter --plan pro
  SHELTER_KEY=$(npx adoption-store keys create --project shelter --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(JSON.parse(s).key))")
  setsid npx adoption-store serve >/dev/null 2>&1 &
  scaled=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$PORT/readyz" | has '"limiter":"redis"'
  [ "$(curl -s -H "Authorization: Bearer $SHELTER_KEY" "http://127.0.0.1:$PORT/v1/pets")" = "[]" ]
  redis-cli -u "$REDIS_URL" --scan --pattern "$REDIS_KEY_PREFIX*" | xargs -r redis-cli -u "$REDIS_URL" del >/dev/null
  echo "smoke: README scale-out commands passed"
fi

# from the gc-bridge checkout, with gc-bridge installed (pip install -e ".[harness,fastapi]")
wait_for() { for _ in $(seq 100); do curl -s -o /dev/null "$1" && return; sleep 0.3; done; return 1; }

# 1. the emulator: the service your backend talks to, with a generated demo site
gcbridge emulator --port 8000 --data-dir .gcbridge --allow-private-receivers &
gcbridge emulator ready --url http://127.0.0.1:8000 --timeout 30
site() { python -c "import json, sys; print(json.load(open('.gcbridge/demo-site.json'))[sys.argv[1]])" "$1"; }
export GC_SSO_SECRET=$(site sso_secret) GC_ACCOUNT_TOKEN=$(site account_token)
WID=$(site website_id)

# 2. ssoData: your /sso-data endpoint, checked the way the app and the service see it
uvicorn docs_src.sso_backend:app --port 8001 &
wait_for http://127.0.0.1:8001/docs
export GC_SESSION="Authorization: Bearer session-of-ada"   # the app's session, never in argv
gcbridge sso check --url http://127.0.0.1:8001/sso-data --secret-env GC_SSO_SECRET \
  --header-env GC_SESSION

# 3. webhooks: your receiver, subscribed to every event, and one event fired at it
export GC_WEBHOOK_SECRET=$(curl -s -X POST http://127.0.0.1:8000/webhook/website/$WID/setup \
  -H "Authorization: Bearer $GC_ACCOUNT_TOKEN" -H 'Content-Type: application/json' \
  -d '{"url": "http://127.0.0.1:9000/webhooks/gc", "events": ["comment.created", "comment.updated", "comment.deleted", "comment.approved"]}' \
  | python -c "import json, sys; print(json.load(sys.stdin)['secret'])")
GC_DELIVERY_LOG=.gcbridge/deliveries.db uvicorn --factory docs_src.receiver_fastapi:create_app --port 9000 &
wait_for http://127.0.0.1:9000/docs
gcbridge webhooks trigger comment.created --emulator http://127.0.0.1:8000 --website-id $WID \
  --token-env GC_ACCOUNT_TOKEN
gcbridge webhooks calls --emulator http://127.0.0.1:8000 --website-id $WID --token-env GC_ACCOUNT_TOKEN

# 4. duplicates, forgeries and stale deliveries, in your own test suite
python -m pytest docs_src/test_receiver.py -q

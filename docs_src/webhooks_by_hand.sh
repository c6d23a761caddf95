gcbridge emulator --port 8000 --data-dir .gcbridge --allow-private-receivers &
gcbridge emulator ready --url http://127.0.0.1:8000 --timeout 30
WID=$(python -c "import json; print(json.load(open('.gcbridge/demo-site.json'))['website_id'])")
TOKEN=$(python -c "import json; print(json.load(open('.gcbridge/demo-site.json'))['account_token'])")
export GC_WEBHOOK_SECRET=$(curl -s -X POST http://127.0.0.1:8000/webhook/website/$WID/setup \
  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"url": "http://127.0.0.1:9000/", "events": ["comment.created"]}' \
  | python -c "import json, sys; print(json.load(sys.stdin)['secret'])")
gcbridge webhooks listen --port 9000 --secret-env GC_WEBHOOK_SECRET &
# post a comment in the widget, or with "send test event" on /dashboard/, and watch:
# VERIFIED  comment.created  delivery=dlv_20f9… retry=0 comment=6a73… by 'zed' status=approved: 'hello webhook'

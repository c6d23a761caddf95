export GC_SSO_SECRET=$(python -c "import secrets; print(secrets.token_urlsafe(32))")
export TOKEN=$(gcbridge sso issue --secret-env GC_SSO_SECRET --id 42 --username ada --email ada@example.com)
gcbridge sso verify --secret-env GC_SSO_SECRET --token-env TOKEN   # {"id": "42", "username": "ada", ...}
echo "$TOKEN" | gcbridge sso verify --secret-env GC_SSO_SECRET --max-age 600 --leeway 60

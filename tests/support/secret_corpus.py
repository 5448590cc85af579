"""A planted corpus of secrets: one fake but format-valid value of each kind, in the text a user would paste.

Deterministic (hashes of a seed, no randomness). Each entry is kind -> (value, text holding it); the kind is the
one pi-tools reports. Values follow each issuer's documented shape (or gitleaks' and detect-secrets' rules).
"""

from __future__ import annotations

import hashlib

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def chars(seed: str, length: int, alphabet: str = ALNUM) -> str:
    out: list[str] = []
    counter = 0
    while len(out) < length:
        digest = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        out.extend(alphabet[b % len(alphabet)] for b in digest)
        counter += 1
    return "".join(out[:length])


def corpus() -> dict[str, tuple[str, str]]:
    """kind -> (secret, text it is planted in)."""
    c = chars
    items: list[tuple[str, str, str]] = [
        ("anthropic-api-key", "sk-ant-api03-" + c("ant", 93) + "AA", "key {}"),
        ("openai-api-key", "sk-proj-" + c("oai", 48), "key {}"),
        ("openrouter-api-key", "sk-or-v1-" + c("or", 64, HEX), "key {}"),
        ("google-api-key", "AIza" + c("goog", 35), "key {}"),
        ("groq-api-key", "gsk_" + c("groq", 52), "key {}"),
        ("xai-api-key", "xai-" + c("xai", 80), "key {}"),
        ("cerebras-api-key", "csk-" + c("cer", 48, LOWER), "key {}"),
        ("nvidia-api-key", "nvapi-" + c("nv", 64), "key {}"),
        ("fireworks-api-key", "fw_" + c("fw", 24), "key {}"),
        ("together-api-key", "tgp_v1_" + c("tg", 43), "key {}"),
        ("vercel-ai-gateway-key", "vck_" + c("vck", 56), "key {}"),
        ("huggingface-token", "hf_" + c("hf", 34), "key {}"),
        ("perplexity-api-key", "pplx-" + c("pplx", 48), "key {}"),
        ("provider-api-key", c("mistral", 32), "export MISTRAL_API_KEY={}"),
        ("provider-api-key", c("zai", 32, HEX) + "." + c("zai2", 16), "ZAI_API_KEY=\"{}\""),
        ("env-secret", c("bas", 32), "BETTER_AUTH_SECRET={}"),
        ("env-secret", "Tr0ub4dor&3-" + c("pw", 8), "DB_PASSWORD: \"{}\""),
        ("basic-auth-header", c("basic", 24) + "==", "Authorization: Basic {}"),
        ("discord-webhook-url", "https://discord.com/api/webhooks/1234567890123456789/" + c("dwh", 68),
         "hook {}"),
        ("google-oauth-access-token", "ya29.a0" + c("ya29", 60), "gcloud {}"),
        ("url-password", "r3d1s" + c("redis", 10), "redis://:{}@cache:6379"),
        ("github-token", "github_pat_11" + c("ghfg", 40), "token {}"),
        ("github-copilot-token", "tid=" + c("tid", 32, HEX) + ";exp=1767225600;sku=copilot;8kp=1:" + c("cp", 64, HEX),
         "token {}"),
        ("aws-access-key-id", "AKIA" + c("aws", 16, UPPER), "id {}"),
        ("aws-secret-access-key", c("awss", 40), "aws_secret_access_key = {}"),
        ("github-token", "ghp_" + c("gh", 36), "token {}"),
        ("gitlab-token", "glpat-" + c("gl", 20), "token {}"),
        ("slack-token", "xoxb-" + c("sl", 12, "0123456789") + "-" + c("sl2", 24), "token {}"),
        ("slack-webhook-url", "https://hooks.slack.com/services/T" + c("sw", 8, UPPER) + "/B" + c("sw2", 8, UPPER)
         + "/" + c("sw3", 24), "post to {}"),
        ("google-oauth-client-secret", "GOCSPX-" + c("gocs", 28), "secret {}"),
        ("stripe-key", "sk_live_" + c("st", 24), "stripe {}"),
        ("npm-token", "npm_" + c("npm", 36), "token {}"),
        ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + c("pypi", 70), "token {}"),
        ("sendgrid-api-key", "SG." + c("sg1", 22) + "." + c("sg2", 43), "key {}"),
        ("digitalocean-token", "dop_v1_" + c("do", 64, HEX), "token {}"),
        ("telegram-bot-token", "123456789:AA" + c("tgb", 33), "bot {}"),
        ("azure-storage-key", c("az", 86) + "==", "AccountName=a;AccountKey={};EndpointSuffix=core"),
        ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJ" + c("jwt1", 30) + "." + c("jwt2", 43), "jwt {}"),
        ("bearer-token", c("bearer", 32), "Authorization: Bearer {}"),
        ("url-password", "p4ss" + c("url", 12), "postgres://admin:{}@db.example.com/app"),
        ("private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl" + c("pk", 64) + "\n-----END OPENSSH PRIVATE KEY-----",
         "{}"),
        ("twilio-api-key", "SK" + c("tw", 32, HEX), "twilio {}"),
        ("mailchimp-api-key", c("mc", 32, HEX) + "-us14", "mailchimp {}"),
        ("square-oauth-secret", "sq0csp-" + c("sq", 43), "square {}"),
        ("square-access-token", "EAAA" + c("sqa", 60), "square {}"),
        ("artifactory-api-key", "AKCp" + c("art", 69), "artifactory {}"),
        ("discord-bot-token", "MTA" + c("dc", 21) + "." + c("dc2", 6) + "." + c("dc3", 27), "DISCORD_BOT={}"),
        ("shopify-access-token", "shpat_" + c("shp", 32, HEX), "shop {}"),
        ("shopify-shared-secret", "shpss_" + c("shs", 32, HEX), "shop {}"),
        ("databricks-api-token", "dapi" + c("dbx", 32, HEX), "databricks {}"),
        ("doppler-api-token", "dp.pt." + c("dop", 43, LOWER), "doppler {}"),
        ("dynatrace-api-token", "dt0c01." + c("dyn", 24, UPPER) + "." + c("dyn2", 64, UPPER), "dt {}"),
        ("linear-api-key", "lin_api_" + c("lin", 40), "linear {}"),
        ("notion-api-token", "ntn_" + c("ntn", 11, "0123456789") + c("ntn2", 35), "notion {}"),
        ("postman-api-token", "PMAK-" + c("pm", 24, HEX) + "-" + c("pm2", 34, HEX), "postman {}"),
        ("pulumi-api-token", "pul-" + c("pul", 40, HEX), "pulumi {}"),
        ("rubygems-api-token", "rubygems_" + c("rg", 48, HEX), "gem {}"),
        ("sentry-user-token", "sntryu_" + c("sen", 64, HEX), "sentry {}"),
        ("grafana-service-account-token", "glsa_" + c("gf", 32) + "_" + c("gf2", 8, HEX), "grafana {}"),
        ("hashicorp-tf-api-token", c("tf", 14) + ".atlasv1." + c("tf2", 67), "terraform {}"),
        ("vault-service-token", "hvs." + c("hv", 100), "vault {}"),
        ("age-secret-key", "AGE-SECRET-KEY-1" + c("age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"), "age {}"),
        ("1password-service-account-token", "ops_eyJ" + c("op", 250), "op {}"),
        ("aws-amazon-bedrock-api-key-long-lived", "ABSKQmVkcm9ja0FQSUtleS" + c("bed", 110), "bedrock {}"),
        ("easypost-api-token", "EZAK" + c("ez", 54), "easypost {}"),
        ("frameio-api-token", "fio-u-" + c("fio", 64), "frameio {}"),
        ("planetscale-api-token", "pscale_tkn_" + c("ps", 43), "planetscale {}"),
        ("prefect-api-token", "pnu_" + c("pf", 36), "prefect {}"),
        ("readme-api-token", "rdme_" + c("rd", 70, LOWER), "readme {}"),
        ("scalingo-api-token", "tk-us-" + c("sc", 48), "scalingo {}"),
        ("sendinblue-api-token", "xkeysib-" + c("sib", 64, HEX) + "-" + c("sib2", 16), "brevo {}"),
        ("shippo-api-token", "shippo_live_" + c("shpo", 40, HEX), "shippo {}"),
        ("clojars-api-token", "CLOJARS_" + c("clj", 60, LOWER), "clojars {}"),
        ("duffel-api-token", "duffel_live_" + c("duf", 43), "duffel {}"),
        ("adafruit-api-key", c("ada", 32, LOWER), "ADAFRUIT_IO_KEY = \"{}\""),
        ("heroku-api-key-v2", "HRKU-AA" + c("hk", 58), "heroku {}"),
        ("mapbox-api-token", "pk." + c("mb", 60) + "." + c("mb2", 22), "mapbox token: {}"),
        ("typeform-api-token", "tfp_" + c("tyf", 44) + "_" + c("tyf2", 14), "typeform_token = {}"),
        ("cloudflare-origin-ca-key", "v1.0-" + c("cf", 24, HEX) + "-" + c("cf2", 146, HEX), "cf {}"),
        ("gitlab-token", "glrt-" + c("glr", 20), "runner {}"),
        ("openshift-user-token", "sha256~" + c("osh", 43), "oc {}"),
    ]
    return {f"{kind}#{index}": (value, text.format(value)) for index, (kind, value, text) in enumerate(items)}


def kind_of(key: str) -> str:
    return key.split("#")[0]

"""Superset's configuration under Quarry: the tested set-up of notes/superset.md.

Everything project-specific arrives in the environment Quarry gives the process (SUPERSET_HOME,
SUPERSET_SECRET_KEY, QUARRY_PROXY_SECRET, QUARRY_LAKE_ATTACH, QUARRY_LAKE_DATA, QUARRY_LAKE_METADATA_SCHEMA (a PostgreSQL catalog), PGPASSWORD (its password, if any), QUARRY_LAKE_BUCKET_SECRET (a lake in a bucket), QUARRY_DUCKDB_EXTENSIONS,
QUARRY_HTTPS).
"""

import hmac
import os
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote

from cachelib.file import FileSystemCache
from flask import request
from flask_appbuilder.security.manager import AUTH_REMOTE_USER
from flask_login import current_user, login_user, logout_user
from duckdb_engine import ConnectionWrapper
from reader_sandbox import assert_reads_only, sandboxed_cursor
from sqlalchemy.pool import NullPool
from superset.security import SupersetSecurityManager

_HOME = os.environ["SUPERSET_HOME"]
_PROXY_SECRET = os.environ["QUARRY_PROXY_SECRET"].encode()
_LAKE = (
    os.environ["QUARRY_LAKE_ATTACH"], os.environ["QUARRY_LAKE_DATA"], os.environ["QUARRY_DUCKDB_EXTENSIONS"],
    os.environ.get("QUARRY_LAKE_METADATA_SCHEMA"),
)
# What Quarry registers; the name stands for the lake, which the creator below opens whatever the URI says.
_WAREHOUSE_URI_DATABASE = "quarry_lake"
_ROOT = "/dashboard"

SECRET_KEY = os.environ["SUPERSET_SECRET_KEY"]
SQLALCHEMY_DATABASE_URI = f"sqlite:///{_HOME}/superset.db?check_same_thread=false"
# No trailing slash: with one, asset URLs become /dashboard//static/... and the root redirects to itself.
APPLICATION_ROOT = _ROOT
CELERY_CONFIG = None
# Every request comes from the proxy's address, so a per-address limit would throttle all users together.
RATELIMIT_ENABLED = False
ENABLE_CORS = False
FEATURE_FLAGS = {}

SESSION_COOKIE_NAME = "dashboard.SESSION"
SESSION_COOKIE_PATH = _ROOT
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = os.environ.get("QUARRY_HTTPS") == "1"
# Server-side sessions: a copied cookie is worthless once the session ends (a signed client cookie is not).
SESSION_SERVER_SIDE = True
SESSION_TYPE = "cachelib"
SESSION_USE_SIGNER = True
SESSION_PERMANENT = False
SESSION_CACHELIB = FileSystemCache(cache_dir=f"{_HOME}/sessions", threshold=100000, mode=0o600)
PERMANENT_SESSION_LIFETIME = timedelta(hours=12)

# Superset's default policy minus every third-party origin.
TALISMAN_CONFIG = {
    "content_security_policy": {
        "base-uri": ["'self'"],
        "default-src": ["'self'"],
        "img-src": ["'self'", "blob:", "data:"],
        "worker-src": ["'self'", "blob:"],
        "connect-src": ["'self'"],
        "object-src": "'none'",
        "style-src": ["'self'", "'unsafe-inline'"],
        "font-src": ["'self'"],
        "script-src": ["'self'", "'strict-dynamic'"],
    },
    "content_security_policy_nonce_in": ["script-src"],
    "force_https": False,
    "session_cookie_secure": False,
}

# Single sign-on: the identity is the X-Quarry-User header, believed only with the shared secret
# Quarry's proxy adds; Quarry provisions the accounts itself.
AUTH_TYPE = AUTH_REMOTE_USER
AUTH_USER_REGISTRATION = False
# Else Quarry's service account cannot get a JWT: "Alternative authentication provider is not allowed".
AUTH_API_LOGIN_ALLOW_MULTIPLE_PROVIDERS = True


class QuarrySecurityManager(SupersetSecurityManager):
    # Superset's own login page would shadow FAB's remote-user view at /login/.
    register_superset_auth_view = False


CUSTOM_SECURITY_MANAGER = QuarrySecurityManager


class TrustQuarryHeader:
    """Turns X-Quarry-User into REMOTE_USER only when X-Quarry-Proxy-Secret matches."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        user = environ.pop("HTTP_X_QUARRY_USER", None)
        secret = environ.pop("HTTP_X_QUARRY_PROXY_SECRET", "").encode()
        environ.pop("REMOTE_USER", None)
        if user and hmac.compare_digest(secret, _PROXY_SECRET):
            # Quarry percent-encodes the name: a header value cannot carry every email.
            environ["REMOTE_USER"] = unquote(user)
        return self.app(environ, start_response)


ADDITIONAL_MIDDLEWARE = [TrustQuarryHeader]


def _strip_root(url):
    return url[len(_ROOT):] if isinstance(url, str) and url.startswith(_ROOT + "/") else url


# Two things in Superset 6.1's frontend clash with the policy above, each with a console error; the assets
# carrying them are served rewritten rather than the policy widened.
_ASSET_REWRITES = (
    # A telemetry pixel from a third-party host, rendered whatever the configuration says (the SCARF_ANALYTICS
    # opt-out is read when the frontend is built, not at run time): a blank image instead.
    (
        re.compile(rb"`https://apachesuperset\.gateway\.scarf\.sh/[^`]*`"),
        b"`data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==`",
    ),
    # SQL Lab's results grid numbers its rows with an AG Grid string expression, which the grid compiles with
    # new Function: without 'unsafe-eval' in script-src the row-number column stays empty. The same
    # computation as a function needs no eval.
    (re.compile(rb'valueGetter:"node\.rowIndex\+1"'), b"valueGetter:function(row){return row.node.rowIndex+1}"),
)


def _serve_rewritten_assets(app):
    rewritten = {}
    for asset in Path(app.static_folder, "assets").glob("*.js"):
        original = content = asset.read_bytes()
        for pattern, replacement in _ASSET_REWRITES:
            content = pattern.sub(replacement, content)
        if content != original:
            rewritten[f"assets/{asset.name}"] = content
    serve_static = app.view_functions["static"]

    def static(filename):
        response = serve_static(filename=filename)
        content = rewritten.get(filename)
        if content is not None and response.status_code == 200:
            # Superset's own headers (caching, validators) stay: the file behind them never changes.
            response.direct_passthrough = False
            response.set_data(content)
        return response

    app.view_functions["static"] = static


# Where Superset's logo leads: Quarry's home. The frontend puts the application root before any path
# (ensureAppRoot), so the path climbs out of it again: /dashboard/../ is /.
_QUARRY_HOME_FROM_ROOT = "/../"


def FLASK_APP_MUTATOR(app):  # noqa: N802 (Superset's name)
    _serve_rewritten_assets(app)

    # Superset 6.1 prefixes the logo twice under an application root (apache/superset#39432).
    app.config["APP_ICON"] = _strip_root(app.config.get("APP_ICON"))
    for theme_key in ("THEME_DEFAULT", "THEME_DARK"):
        tokens = (app.config.get(theme_key) or {}).get("token")
        if isinstance(tokens, dict) and "brandLogoUrl" in tokens:
            tokens["brandLogoUrl"] = _strip_root(tokens["brandLogoUrl"])
            tokens["brandLogoHref"] = _QUARRY_HOME_FROM_ROOT

    # FAB reads REMOTE_USER only at /login/; after that the session cookie decides. Binding the
    # identity on every request keeps a Superset session from outliving or diverging from Quarry's.
    def bind_identity():
        remote = request.environ.get("REMOTE_USER")
        if current_user.is_authenticated and current_user.username != remote:
            logout_user()
        if remote and not current_user.is_authenticated:
            user = app.appbuilder.sm.auth_user_remote_user(remote)  # None if unknown or inactive
            if user is not None:
                login_user(user)

    app.before_request_funcs.setdefault(None, []).insert(0, bind_identity)


def DB_CONNECTION_MUTATOR(url, params, username, security_manager, source):  # noqa: N802
    """Every engine is the lake opened through Quarry's reader sandbox, whatever URI or engine_params were registered.

    The engine's keyword arguments are replaced, not amended: duckdb-engine reads more than `config` from
    connect_args (`url_config` overrides it, `database` opens another file, `preload_extensions` runs
    LOAD), and any other database on loopback (a trust-authenticated PostgreSQL, say) is off limits too.
    The creator ignores the URL's query and connect_args altogether.
    """
    if url.drivername != "duckdb":
        raise ValueError("the dashboard tool reads Quarry's warehouse only")
    if url.database != _WAREHOUSE_URI_DATABASE:
        raise ValueError("only the Quarry warehouse may be opened")
    safe_params = {"creator": lambda: ConnectionWrapper(sandboxed_cursor(*_LAKE))}
    if params.get("poolclass") is NullPool:
        safe_params["poolclass"] = NullPool
    return url.set(query={}, username=None, password=None, host=None, port=None), safe_params


def SQL_QUERY_MUTATOR(sql, **kwargs):  # noqa: N802
    """SQL Lab, charts and datasets all pass here before running: anything but a query is refused.

    Superset's allow_dml does not see COPY or EXPORT; DuckDB's own parser does. The sandbox stops file
    access, but not the catalog extension's own functions (sqlite_scan): this refuses those too.
    """
    assert_reads_only(sql)
    return sql

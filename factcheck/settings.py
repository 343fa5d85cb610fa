"""Settings, all from environment variables (DESIGN §7, §8).

With nothing set the app runs for development: DEBUG on, a SQLite file and an embedded
filesystem Celery broker under ``var/``. Production sets DATABASE_URL, CELERY_BROKER_URL,
SECRET_KEY, ALLOWED_HOSTS and DEBUG=false.
"""

from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("FACTCHECK_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production-0123456789"
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "axes",
    "factcheck.core",
    "factcheck.partners",
    "factcheck.posts",
    "factcheck.ratings",
    "factcheck.demotion",
    "factcheck.moderation",
    "factcheck.review",
    "factcheck.dashboard",
    "factcheck.api",
    "factcheck.ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "factcheck.core.middleware.RequestIdMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Axes must come last: it turns a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "factcheck.urls"
WSGI_APPLICATION = "factcheck.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "factcheck.partners.context_processors.navigation",
                "factcheck.moderation.context_processors.pending_escalations",  # moderation
            ],
        },
    },
]

# Database: SQLite by default, in WAL mode with a busy timeout because the web server and
# the worker write at once; PostgreSQL with DATABASE_URL=postgres://...
VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'factcheck.sqlite3'}")
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "timeout": 30,
            # Take the write lock at BEGIN, so two writers queue instead of deadlocking.
            "transaction_mode": "IMMEDIATE",
        }
    )
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "partners.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
PASSWORD_RESET_TIMEOUT = 7 * 24 * 3600  # invitations stay valid a week

# django-axes: lock a username from an address after repeated failures.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "registration/locked.html"
AXES_RESET_ON_SUCCESS = True
# The login form posts the email as "username"; lock on it case-insensitively.
AXES_USERNAME_CALLABLE = "factcheck.partners.auth.axes_username"
AXES_VERBOSE = False

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns when it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="factcheck@localhost")

# HTTPS hardening: on whenever DEBUG is off, unless FACTCHECK_HTTPS=false (plain HTTP behind a
# proxy that terminates TLS should set SECURE_PROXY_SSL_HEADER instead).
if env.bool("FACTCHECK_HTTPS", default=not DEBUG):
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
if env.bool("FACTCHECK_BEHIND_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024  # DESIGN §8: 10 MiB request bodies

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "factcheck.partners.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "factcheck.core.api.exception_handler",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "factcheck API",
    "DESCRIPTION": "Ingestion, the review queue, ratings, the ranker's demotion table and "
    "moderation. Authenticate with `Authorization: Bearer <token>`.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI from static files, never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery (factcheck/celery.py reads every CELERY_* name). Without a broker URL, an embedded
# filesystem broker: a real worker process, nothing to install.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _queue_dir = VAR_DIR / "celery" / "queue"
    _control_dir = VAR_DIR / "celery" / "control"
    _queue_dir.mkdir(parents=True, exist_ok=True)
    _control_dir.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "control_folder": str(_control_dir),
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 3, "socket_timeout": 5}
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Celery's Django fix-up closes the database connection before and after every task unless
# told to reuse it (it still recycles after this many tasks): a new PostgreSQL connection per
# task was most of the demotion task's cost in the pipeline benchmark.
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=100)

# Product settings (DESIGN §8).
FACTCHECK_CLAIM_MINUTES = env.int("FACTCHECK_CLAIM_MINUTES", default=20)
FACTCHECK_MAX_CLAIMS = env.int("FACTCHECK_MAX_CLAIMS", default=3)
FACTCHECK_ACCREDITATION_WARNING_DAYS = env.int("FACTCHECK_ACCREDITATION_WARNING_DAYS", default=30)
FACTCHECK_SCORER = env.str("FACTCHECK_SCORER", default="factcheck.moderation.scorer.RuleScorer")
FACTCHECK_ESCALATION_THRESHOLD = env.float("FACTCHECK_ESCALATION_THRESHOLD", default=0.7)
FACTCHECK_WEBHOOK_URLS = env.list("FACTCHECK_WEBHOOK_URLS", default=[])
FACTCHECK_WEBHOOK_SECRET = env.str("FACTCHECK_WEBHOOK_SECRET", default="")
FACTCHECK_BASE_URL = env.str("FACTCHECK_BASE_URL", default="http://127.0.0.1:8000")
# Ingest refuses observations further than this in the future (the platform's clock may drift).
FACTCHECK_CLOCK_SKEW_SECONDS = env.int("FACTCHECK_CLOCK_SKEW_SECONDS", default=300)

# Moderation: escalations, SLAs (minutes), user-report rates, claims and appeals
FACTCHECK_SCORE_ON_INGEST = env.bool("FACTCHECK_SCORE_ON_INGEST", default=True)
FACTCHECK_SLA_URGENT_MINUTES = env.int("FACTCHECK_SLA_URGENT_MINUTES", default=60)
FACTCHECK_SLA_HIGH_MINUTES = env.int("FACTCHECK_SLA_HIGH_MINUTES", default=1440)
FACTCHECK_SLA_NORMAL_MINUTES = env.int("FACTCHECK_SLA_NORMAL_MINUTES", default=4320)
FACTCHECK_REPORT_RATE_THRESHOLD = env.float("FACTCHECK_REPORT_RATE_THRESHOLD", default=2.0)
FACTCHECK_REPORT_RATE_HIGH = env.float("FACTCHECK_REPORT_RATE_HIGH", default=10.0)
FACTCHECK_REPORT_MIN_VIEWS = env.int("FACTCHECK_REPORT_MIN_VIEWS", default=500)
FACTCHECK_MODERATION_CLAIM_MINUTES = env.int("FACTCHECK_MODERATION_CLAIM_MINUTES", default=15)
FACTCHECK_APPEAL_DAYS = env.int("FACTCHECK_APPEAL_DAYS", default=20)

# Demotion: repeat-offender strikes (DESIGN §4) and the reconciler's grace period
FACTCHECK_STRIKE_WINDOW_DAYS = env.int("FACTCHECK_STRIKE_WINDOW_DAYS", default=90)
FACTCHECK_STRIKES_FOR_PENALTY = env.int("FACTCHECK_STRIKES_FOR_PENALTY", default=3)
FACTCHECK_AUTHOR_PENALTY_MULTIPLIER = env.float("FACTCHECK_AUTHOR_PENALTY_MULTIPLIER", default=0.5)
FACTCHECK_RECONCILE_AFTER_SECONDS = env.int("FACTCHECK_RECONCILE_AFTER_SECONDS", default=30)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "factcheck.core.logging.RequestIdFilter"}},
    "formatters": {"json": {"()": "factcheck.core.logging.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

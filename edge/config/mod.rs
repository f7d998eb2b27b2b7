//! The flags of `formsd` (each also read from the environment variable shown in
//! `--help`), with their defaults: the one place the service's defaults are written
//! (the core's settings have none of their own; see `ServeArgs::from_defaults`).

mod values;

use crate::http::tls::TlsFiles;
use crate::limits::at_least_one;
use clap::{Args, FromArgMatches, ValueEnum};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
pub(crate) use values::Limit;
use values::{parse_http_url, parse_issuer, parse_source_list, positive_duration};

/// Where the database is; every command uses it.
#[derive(Args)]
pub(crate) struct DbArgs {
    /// PostgreSQL server to use; without it, formsd runs a private cluster in --data-dir.
    #[arg(long, env = "DATABASE_URL", global = true, hide_env_values = true)]
    pub database_url: Option<String>,
    /// A streaming-replication standby of the database that may serve reads (`serve`
    /// only; repeat the flag for several; the variable takes them space-separated). A
    /// read goes to one only once it has replayed every write acknowledged before the
    /// read arrived; else the primary serves it (see the book: Running, read replicas).
    #[arg(
        long,
        env = "FORMS_DATABASE_REPLICA_URLS",
        global = true,
        hide_env_values = true,
        value_delimiter = ' '
    )]
    pub database_replica_url: Vec<String>,
    /// Directory of the embedded PostgreSQL cluster (used when DATABASE_URL is not set).
    #[arg(
        long,
        env = "FORMS_DATA_DIR",
        default_value = "./formsd-data",
        global = true
    )]
    pub data_dir: PathBuf,
    /// Connections in the database pool.
    #[arg(
        long,
        env = "FORMS_DB_MAX_CONNECTIONS",
        default_value_t = 20,
        global = true
    )]
    pub db_max_connections: u32,
    /// Longest wait of a request for a pooled connection (then 503).
    #[arg(
        long,
        env = "FORMS_DB_ACQUIRE_TIMEOUT",
        default_value = "3s",
        global = true
    )]
    pub db_acquire_timeout: humantime::Duration,
    /// How long formsd waits at start for a database server that takes writes (asking
    /// again with back-off, saying in the log what it waits for) before it gives up: a
    /// server starting, busy or in a failover is waited for, not taken for a fault.
    #[arg(
        long,
        env = "FORMS_DB_START_TIMEOUT",
        default_value = "60s",
        global = true
    )]
    pub db_start_timeout: humantime::Duration,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Role {
    /// The gRPC core and the REST edge in one process (the edge calls the core in-process).
    All,
    /// The gRPC core only.
    Core,
    /// The REST edge only, calling a remote core at --core-url.
    Edge,
}

impl Role {
    /// Whether this role runs the gRPC core (and so needs the database).
    pub(crate) fn runs_core(self) -> bool {
        self != Role::Edge
    }

    /// Whether this role runs the REST edge.
    pub(crate) fn runs_edge(self) -> bool {
        self != Role::Core
    }
}

/// Flags of `formsd serve`.
#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Which halves of the service to run.
    #[arg(long, env = "FORMS_ROLE", value_enum, default_value_t = Role::All)]
    pub role: Role,
    /// Address of the REST edge.
    #[arg(long, env = "FORMS_HTTP_ADDR", default_value = "127.0.0.1:8080")]
    pub http_addr: SocketAddr,
    /// Address of the gRPC core.
    #[arg(long, env = "FORMS_GRPC_ADDR", default_value = "127.0.0.1:50051")]
    pub grpc_addr: SocketAddr,
    /// Address of the Prometheus metrics endpoint (`GET /metrics`); unset: no metrics.
    /// Keep it off the public network.
    #[arg(long, env = "FORMS_METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,
    /// PEM certificate chain (the server's certificate first) to serve HTTPS and gRPC
    /// over TLS, with --tls-key; read again when it changes. Unset: plain HTTP and gRPC,
    /// for a TLS-terminating proxy in front (see the book: Running, proxies).
    #[arg(long, env = "FORMS_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert (PKCS#8, PKCS#1 or SEC1); read again when it changes.
    #[arg(long, env = "FORMS_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// How often the --tls-cert and --tls-key files are checked for a change; a changed
    /// pair that loads is served to new connections, one that does not keeps the
    /// certificate in service (with a warning).
    #[arg(long, env = "FORMS_TLS_RELOAD_INTERVAL", default_value = "5s", value_parser = positive_duration)]
    pub tls_reload_interval: humantime::Duration,
    /// The core an edge-only process calls: http://, or https:// for a core serving
    /// gRPC over TLS (checked against the system's roots and --core-ca).
    #[arg(long, env = "FORMS_CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,
    /// PEM certificate(s) of the authority that an edge-only process trusts, besides the
    /// system's, for an https:// --core-url (a private CA, or the core's own certificate).
    #[arg(long, env = "FORMS_CORE_CA")]
    pub core_ca: Option<PathBuf>,
    /// Requests per minute of a Pro key.
    #[arg(long, env = "FORMS_PRO_RATE_LIMIT", default_value_t = 1000)]
    pub pro_rate_limit: u32,
    /// Requests per minute of an Enterprise key.
    #[arg(long, env = "FORMS_ENTERPRISE_RATE_LIMIT", default_value_t = 5000)]
    pub enterprise_rate_limit: u32,
    /// Length of a rate-limit window in seconds (60 by SPEC; shorter values are for tests).
    #[arg(long, env = "FORMS_RATE_WINDOW_SECS", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub rate_window_secs: u32,
    /// Requests failing authentication allowed per client IP and minute.
    #[arg(long, env = "FORMS_AUTH_FAILURES_PER_MINUTE", default_value_t = 60)]
    pub auth_failures_per_minute: u32,
    /// Addresses of the reverse proxies in front of the REST edge, whose word (the
    /// header of --proxy-header) the edge believes: the visitor's address, and whether it
    /// came over HTTPS; comma-separated.
    #[arg(long, env = "FORMS_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<IpAddr>,
    /// The header the trusted proxies write: `x-forwarded-for` (with
    /// `X-Forwarded-Proto`) or RFC 7239's `forwarded`. The other is never read, since a
    /// proxy passes a client's own header of the other family through.
    #[arg(
        long,
        env = "FORMS_PROXY_HEADER",
        value_enum,
        default_value = "x-forwarded-for"
    )]
    pub proxy_header: crate::http::forwarded::ProxyHeader,
    /// A secret shared by a core and its separate REST edges (--role edge): an edge sends
    /// it with each call, and the core believes the visitor's address an edge forwards
    /// only from calls that carry it (the in-process edge is always believed; a client
    /// of the public gRPC port never is, whatever metadata it sends). At least 32 bytes.
    #[arg(long, env = "FORMS_EDGE_SECRET")]
    pub edge_secret: Option<String>,
    /// Hosted-page submissions allowed per visitor IP and minute.
    #[arg(
        long,
        env = "FORMS_HOSTED_SUBMISSIONS_PER_MINUTE",
        default_value_t = 30
    )]
    pub hosted_submissions_per_minute: u32,
    /// Object store for uploaded files (file:///dir, or s3://bucket/prefix with AWS_*
    /// settings in the environment); unset keeps files in PostgreSQL.
    #[arg(long, env = "FORMS_FILE_STORE_URL")]
    pub file_store_url: Option<String>,
    /// Name of the identity provider's session cookie (API sign-in without a key).
    #[arg(long, env = "FORMS_SESSION_COOKIE", default_value = "session")]
    pub session_cookie: String,
    /// Shared secret of HS256 session tokens (enables session sign-in).
    #[arg(
        long,
        env = "FORMS_SESSION_HS256_SECRET",
        hide_env_values = true,
        conflicts_with = "session_public_key_file"
    )]
    pub session_hs256_secret: Option<String>,
    /// PEM public key of RS256/ES256 session tokens (enables session sign-in).
    #[arg(long, env = "FORMS_SESSION_PUBLIC_KEY_FILE")]
    pub session_public_key_file: Option<PathBuf>,
    /// Algorithm of --session-public-key-file: RS256 or ES256.
    #[arg(long, env = "FORMS_SESSION_ALGORITHM", default_value = "RS256")]
    pub session_algorithm: String,
    /// Audience session tokens must carry in `aud` (then required); unset: `aud` is
    /// not checked.
    #[arg(long, env = "FORMS_SESSION_AUDIENCE")]
    pub session_audience: Option<String>,
    /// Issuer session tokens must carry in `iss` (then required); unset: not checked.
    #[arg(long, env = "FORMS_SESSION_ISSUER")]
    pub session_issuer: Option<String>,
    /// Operator token for the admin gRPC services (disabled when unset).
    #[arg(long, env = "FORMS_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Responses per calendar month (UTC) of a Free account ("unlimited" for none).
    #[arg(long, env = "FORMS_FREE_RESPONSE_LIMIT", default_value = "100")]
    pub free_response_limit: Limit,
    /// Responses per calendar month of a Pro account.
    #[arg(long, env = "FORMS_PRO_RESPONSE_LIMIT", default_value = "10000")]
    pub pro_response_limit: Limit,
    /// Responses per calendar month of an Enterprise account.
    #[arg(
        long,
        env = "FORMS_ENTERPRISE_RESPONSE_LIMIT",
        default_value = "unlimited"
    )]
    pub enterprise_response_limit: Limit,
    /// How long an Idempotency-Key is remembered.
    #[arg(long, env = "FORMS_IDEMPOTENCY_TTL", default_value = "24h")]
    pub idempotency_ttl: humantime::Duration,
    /// Allow webhook targets on http:// and private/loopback addresses (development and tests only).
    #[arg(long, env = "FORMS_WEBHOOK_ALLOW_PRIVATE")]
    pub webhook_allow_private: bool,
    /// Time a webhook receiver has to answer.
    #[arg(long, env = "FORMS_WEBHOOK_TIMEOUT", default_value = "10s")]
    pub webhook_timeout: humantime::Duration,
    /// Waits before the retries of a failed delivery.
    #[arg(
        long,
        env = "FORMS_WEBHOOK_RETRY_SCHEDULE",
        default_value = "30s,5m,30m",
        value_delimiter = ','
    )]
    pub webhook_retry_schedule: Vec<humantime::Duration>,
    /// Webhook deliveries in flight at once in this process.
    #[arg(long, env = "FORMS_WEBHOOK_CONCURRENCY", default_value_t = 256)]
    pub webhook_concurrency: usize,
    /// Webhook deliveries of one account in flight at once in this process, so one
    /// tenant's slow receivers cannot take every slot.
    #[arg(
        long,
        env = "FORMS_WEBHOOK_CONCURRENCY_PER_ACCOUNT",
        default_value_t = 8,
        value_parser = at_least_one
    )]
    pub webhook_concurrency_per_account: usize,
    /// How long settled webhook deliveries and notifications are kept, with their
    /// attempts (purged by a job every minute; pending ones are kept).
    #[arg(long, env = "FORMS_DELIVERY_RETENTION", default_value = "30d")]
    pub delivery_retention: humantime::Duration,
    /// How often delivery workers look for due deliveries when not notified.
    #[arg(long, env = "FORMS_WEBHOOK_POLL_INTERVAL", default_value = "1s")]
    pub webhook_poll_interval: humantime::Duration,
    /// SMTP relay of owner notifications: smtp://host[:port] (STARTTLS when offered;
    /// `?starttls=required` insists), or smtps://host[:port]; user and password in the
    /// userinfo. Unset: notifications are not sent.
    #[arg(
        long,
        env = "FORMS_SMTP_URL",
        hide_env_values = true,
        requires = "smtp_from"
    )]
    pub smtp_url: Option<String>,
    /// Sender of owner notifications, e.g. `Forms <forms@example.com>`.
    #[arg(long, env = "FORMS_SMTP_FROM")]
    pub smtp_from: Option<String>,
    /// Password of the --smtp-url user when the URL has none (prefer the environment).
    #[arg(long, env = "FORMS_SMTP_PASSWORD", hide_env_values = true)]
    pub smtp_password: Option<String>,
    /// Confirmation mails one form may send to its respondents in 24 hours (each
    /// address gets at most 10 a day, whatever the form).
    #[arg(
        long,
        env = "FORMS_CONFIRMATION_MAILS_PER_FORM",
        default_value_t = 200,
        value_parser = clap::value_parser!(i64).range(0..)
    )]
    pub confirmation_mails_per_form: i64,
    /// Largest hosted-page submission with its files, in bytes.
    #[arg(long, env = "FORMS_MAX_UPLOAD_BYTES", default_value_t = 110 * 1024 * 1024)]
    pub max_upload_bytes: usize,
    /// Time a client has to send a request's headers; a keep-alive connection idle for
    /// longer is closed.
    #[arg(long, env = "FORMS_HTTP_HEADER_TIMEOUT", default_value = "10s")]
    pub http_header_timeout: humantime::Duration,
    /// Time a client has to send a request's whole body (408 after it).
    #[arg(long, env = "FORMS_HTTP_BODY_TIMEOUT", default_value = "2m")]
    pub http_body_timeout: humantime::Duration,
    /// REST connections open at once; a new connection over the cap is closed at once.
    #[arg(long, env = "FORMS_HTTP_MAX_CONNECTIONS", default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..))]
    pub http_max_connections: u32,
    /// On SIGTERM: how long requests and webhook attempts in flight may take to finish
    /// before the process exits anyway (unfinished deliveries are retried later).
    #[arg(long, env = "FORMS_SHUTDOWN_TIMEOUT", default_value = "30s")]
    pub shutdown_timeout: humantime::Duration,
    /// Who may embed hosted form pages in a frame: a CSP `frame-ancestors` source list,
    /// e.g. `'self' https://www.example.com`, or `'none'`.
    #[arg(long, env = "FORMS_FRAME_ANCESTORS", default_value = "*", value_parser = parse_source_list)]
    pub frame_ancestors: String,
    /// Memory of the instance's view of the forms it stores responses to, in bytes:
    /// with a form in view, a create takes one statement; beyond it the least
    /// recently used form leaves the view (its next create takes the locked path).
    #[arg(long, env = "FORMS_FORM_VIEW_BYTES", default_value_t = 64 * 1024 * 1024, value_parser = at_least_one)]
    pub form_view_bytes: usize,
    /// Largest REST request body in bytes.
    #[arg(long, env = "FORMS_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    pub max_body_bytes: usize,
    /// Caps on work whose size a caller or visitor chooses (edge/limits.rs).
    #[command(flatten)]
    pub limits: crate::limits::LimitArgs,
    /// A dashboard session unused for this long ends.
    #[arg(long, env = "FORMS_SESSION_IDLE_TIMEOUT", default_value = "2h")]
    pub session_idle_timeout: humantime::Duration,
    /// A dashboard session ends this long after sign-in, however busy.
    #[arg(long, env = "FORMS_SESSION_LIFETIME", default_value = "7d")]
    pub session_lifetime: humantime::Duration,
    /// Dashboard sign-in attempts per minute, per client address and per account.
    #[arg(long, env = "FORMS_SIGN_IN_ATTEMPTS_PER_MINUTE", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub sign_in_attempts_per_minute: u32,
    /// OpenID Connect issuer of dashboard sign-in, e.g. `https://accounts.example.com`
    /// (its discovery document is `<issuer>/.well-known/openid-configuration`). An
    /// http:// issuer is accepted for a provider on loopback; use https:// elsewhere.
    /// Register `<public URL>/app/sign-in/oidc/callback` as the client's redirect URI.
    #[arg(long, env = "FORMS_OIDC_ISSUER", requires_all = ["oidc_client_id", "oidc_client_secret"], value_parser = parse_issuer)]
    pub oidc_issuer: Option<String>,
    /// Client id of this service at the OpenID provider.
    #[arg(long, env = "FORMS_OIDC_CLIENT_ID", requires = "oidc_issuer")]
    pub oidc_client_id: Option<String>,
    /// Client secret at the OpenID provider (prefer the environment).
    #[arg(
        long,
        env = "FORMS_OIDC_CLIENT_SECRET",
        hide_env_values = true,
        requires = "oidc_issuer"
    )]
    pub oidc_client_secret: Option<String>,
    /// Where browsers reach the dashboard, e.g. `https://forms.example.com`: the origin
    /// of the OpenID callback and of mailed sign-in links. Unset: the request's own
    /// origin (its Host, and https when it came over TLS or a trusted proxy says so) for
    /// the OpenID callback (which the provider checks against the registered one), and
    /// no mailed links, since a link built from a Host header the sender chose could
    /// send its token to another site.
    #[arg(long, env = "FORMS_PUBLIC_URL", value_parser = parse_http_url)]
    pub public_url: Option<String>,
}

/// Shortest secret accepted (the admin token, the HS256 session secret): an empty or
/// short one would let anyone in with an empty header, or forge sessions.
const MIN_SECRET_BYTES: usize = 32;

impl ServeArgs {
    /// The settings of `serve` with no flag given (the environment still applies): what
    /// a core run for one operator command is configured with.
    pub(crate) fn from_defaults() -> Result<Self, clap::Error> {
        let command = Self::augment_args(clap::Command::new("serve"));
        Self::from_arg_matches(&command.try_get_matches_from(["serve"])?)
    }

    /// The certificate and key files, when TLS is configured (clap requires both).
    pub(crate) fn tls_files(&self) -> Option<TlsFiles> {
        Some(TlsFiles {
            cert: self.tls_cert.clone()?,
            key: self.tls_key.clone()?,
        })
    }

    /// Refuses secrets that are set but short. Checked after parsing rather than by a
    /// clap value parser, whose error message would echo the value.
    pub(crate) fn check_secrets(&self) -> Result<(), String> {
        let secrets = [
            ("--admin-token (FORMS_ADMIN_TOKEN)", &self.admin_token),
            (
                "--session-hs256-secret (FORMS_SESSION_HS256_SECRET)",
                &self.session_hs256_secret,
            ),
            ("--edge-secret (FORMS_EDGE_SECRET)", &self.edge_secret),
        ];
        for (name, secret) in secrets {
            if let Some(secret) = secret
                && secret.len() < MIN_SECRET_BYTES
            {
                return Err(format!(
                    "{name} must be at least {MIN_SECRET_BYTES} bytes (e.g. `openssl rand -hex 32`), got {}; unset it to turn the feature off",
                    secret.len()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_show_as_operators_write_them() {
        let args = ServeArgs::from_defaults().expect("defaults parse");
        assert_eq!(
            args.webhook_retry_schedule
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["30s", "5m", "30m"]
        );
        assert_eq!(args.idempotency_ttl.to_string(), "1day");
        assert_eq!(args.enterprise_response_limit, Limit(None));
        assert_eq!(args.free_response_limit.to_string(), "100");
        assert_eq!("unlimited".parse::<Limit>(), Ok(Limit(None)));
        assert!("-1".parse::<Limit>().is_err());
    }

    #[test]
    fn replica_urls_repeat_and_split_on_spaces() {
        let command = DbArgs::augment_args(clap::Command::new("formsd"));
        let parse = |args: &[&str]| {
            let matches = command.clone().try_get_matches_from(args).expect("parses");
            DbArgs::from_arg_matches(&matches)
                .expect("db args")
                .database_replica_url
        };
        assert!(parse(&["formsd"]).is_empty(), "none by default");
        let urls = parse(&[
            "formsd",
            "--database-replica-url",
            "postgres://r1/forms",
            "--database-replica-url",
            "postgres://r2/forms postgres://r3/forms",
        ]);
        assert_eq!(
            urls,
            [
                "postgres://r1/forms",
                "postgres://r2/forms",
                "postgres://r3/forms"
            ]
        );
    }

    /// SPEC Webhooks: retries 30 s, then 5 minutes, then 30 minutes after a failure, and
    /// a receiver acknowledges within 10 seconds; as the core receives them.
    #[test]
    fn delivery_defaults_are_the_specs() {
        let args = ServeArgs::from_defaults().expect("defaults parse");
        let schedule: Vec<std::time::Duration> = args
            .webhook_retry_schedule
            .iter()
            .map(|d| (*d).into())
            .collect();
        let minutes = |m: u64| std::time::Duration::from_secs(60 * m);
        assert_eq!(
            schedule,
            [std::time::Duration::from_secs(30), minutes(5), minutes(30)]
        );
        assert_eq!(
            std::time::Duration::from(args.webhook_timeout),
            std::time::Duration::from_secs(10)
        );
    }
}

//! `formsd`: the forms service in one binary. `serve` runs the gRPC core and the REST
//! edge (together, or each alone for scale-out); `keys` and `accounts` are the
//! operator's command line. This file is the only place in `edge/` that touches the
//! core library directly: to host it, and to run operator commands on its database.

mod body;
mod call;
mod error;
mod routes;
mod state;

use clap::{Args, Parser, Subcommand, ValueEnum};
use forms::accounts::{Plan, Scope, Scopes, store};
use forms::db::{self, embedded::EmbeddedPostgres};
use forms::webhooks::delivery::DeliveryConfig;
use forms::{Core, CoreConfig};
use sqlx::PgPool;
use state::{AppState, Transport, TransportError};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::{BoxError, ServiceExt};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Self-hostable form collection service.
#[derive(Parser)]
#[command(name = "formsd", version, about)]
struct Cli {
    #[command(flatten)]
    db: DbArgs,
    /// Log line format.
    #[arg(long, env = "FORMS_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args)]
struct DbArgs {
    /// PostgreSQL server to use; without it, formsd runs a private cluster in --data-dir.
    #[arg(long, env = "DATABASE_URL", global = true, hide_env_values = true)]
    database_url: Option<String>,
    /// Directory of the embedded PostgreSQL cluster (used when DATABASE_URL is not set).
    #[arg(
        long,
        env = "FORMS_DATA_DIR",
        default_value = "./formsd-data",
        global = true
    )]
    data_dir: PathBuf,
    /// Connections in the database pool.
    #[arg(
        long,
        env = "FORMS_DB_MAX_CONNECTIONS",
        default_value_t = 20,
        global = true
    )]
    db_max_connections: u32,
}

#[derive(Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Run the service.
    Serve(Box<ServeArgs>),
    /// Manage API keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Manage accounts.
    #[command(subcommand)]
    Accounts(AccountsCommand),
    /// Operate webhook subscriptions and their deliveries.
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
}

#[derive(Subcommand)]
enum WebhooksCommand {
    /// Edit a subscription.
    Update {
        /// Webhook id.
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        url: Option<String>,
        /// Comma-separated event names.
        #[arg(long, value_delimiter = ',')]
        events: Option<Vec<String>>,
        /// Turn deliveries on or off.
        #[arg(long)]
        active: Option<bool>,
        /// Accept http:// and private targets (development only).
        #[arg(long)]
        allow_private: bool,
    },
    /// List a subscription's deliveries and their attempts, newest first.
    Deliveries {
        /// Webhook id.
        id: String,
        #[arg(long)]
        page: Option<i32>,
    },
    /// Schedule a failed delivery again, now.
    Retry {
        /// Delivery id.
        id: String,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Role {
    /// The gRPC core and the REST edge in one process (the edge calls the core in-process).
    All,
    /// The gRPC core only.
    Core,
    /// The REST edge only, calling a remote core at --core-url.
    Edge,
}

#[derive(Args)]
struct ServeArgs {
    /// Which halves of the service to run.
    #[arg(long, env = "FORMS_ROLE", value_enum, default_value_t = Role::All)]
    role: Role,
    /// Address of the REST edge.
    #[arg(long, env = "FORMS_HTTP_ADDR", default_value = "127.0.0.1:8080")]
    http_addr: SocketAddr,
    /// Address of the gRPC core.
    #[arg(long, env = "FORMS_GRPC_ADDR", default_value = "127.0.0.1:50051")]
    grpc_addr: SocketAddr,
    /// The core an edge-only process calls.
    #[arg(long, env = "FORMS_CORE_URL", default_value = "http://127.0.0.1:50051")]
    core_url: String,
    /// Requests per minute of a Pro key.
    #[arg(long, env = "FORMS_PRO_RATE_LIMIT", default_value_t = 1000)]
    pro_rate_limit: u32,
    /// Requests per minute of an Enterprise key.
    #[arg(long, env = "FORMS_ENTERPRISE_RATE_LIMIT", default_value_t = 5000)]
    enterprise_rate_limit: u32,
    /// Length of a rate-limit window in seconds (60 by SPEC; shorter values are for tests).
    #[arg(long, env = "FORMS_RATE_WINDOW_SECS", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=3600))]
    rate_window_secs: u32,
    /// Requests failing authentication allowed per client IP and minute.
    #[arg(long, env = "FORMS_AUTH_FAILURES_PER_MINUTE", default_value_t = 60)]
    auth_failures_per_minute: u32,
    /// Addresses of separate REST edges (--role edge) whose client-IP metadata the core
    /// believes, comma-separated; the in-process edge is always believed.
    #[arg(long, env = "FORMS_TRUSTED_PROXIES", value_delimiter = ',')]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// Hosted-page submissions allowed per visitor IP and minute.
    #[arg(
        long,
        env = "FORMS_HOSTED_SUBMISSIONS_PER_MINUTE",
        default_value_t = 30
    )]
    hosted_submissions_per_minute: u32,
    /// Object store for uploaded files (file:///dir, or s3://bucket/prefix with AWS_*
    /// settings in the environment); unset keeps files in PostgreSQL.
    #[arg(long, env = "FORMS_FILE_STORE_URL")]
    file_store_url: Option<String>,
    /// Name of the identity provider's session cookie (API sign-in without a key).
    #[arg(long, env = "FORMS_SESSION_COOKIE", default_value = "session")]
    session_cookie: String,
    /// Shared secret of HS256 session tokens (enables session sign-in).
    #[arg(
        long,
        env = "FORMS_SESSION_HS256_SECRET",
        hide_env_values = true,
        conflicts_with = "session_public_key_file"
    )]
    session_hs256_secret: Option<String>,
    /// PEM public key of RS256/ES256 session tokens (enables session sign-in).
    #[arg(long, env = "FORMS_SESSION_PUBLIC_KEY_FILE")]
    session_public_key_file: Option<PathBuf>,
    /// Algorithm of --session-public-key-file: RS256 or ES256.
    #[arg(long, env = "FORMS_SESSION_ALGORITHM", default_value = "RS256")]
    session_algorithm: String,
    /// Operator token for the admin gRPC services (disabled when unset).
    #[arg(long, env = "FORMS_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// Responses per calendar month (UTC) of a Free account ("unlimited" for none).
    #[arg(long, env = "FORMS_FREE_RESPONSE_LIMIT", default_value = "100")]
    free_response_limit: Limit,
    /// Responses per calendar month of a Pro account.
    #[arg(long, env = "FORMS_PRO_RESPONSE_LIMIT", default_value = "10000")]
    pro_response_limit: Limit,
    /// Responses per calendar month of an Enterprise account.
    #[arg(
        long,
        env = "FORMS_ENTERPRISE_RESPONSE_LIMIT",
        default_value = "unlimited"
    )]
    enterprise_response_limit: Limit,
    /// How long an Idempotency-Key is remembered.
    #[arg(long, env = "FORMS_IDEMPOTENCY_TTL", default_value = "24h")]
    idempotency_ttl: humantime::Duration,
    /// Allow webhook targets on http:// and private/loopback addresses (development and tests only).
    #[arg(long, env = "FORMS_WEBHOOK_ALLOW_PRIVATE")]
    webhook_allow_private: bool,
    /// Time a webhook receiver has to answer.
    #[arg(long, env = "FORMS_WEBHOOK_TIMEOUT", default_value = "10s")]
    webhook_timeout: humantime::Duration,
    /// Waits before the retries of a failed delivery.
    #[arg(
        long,
        env = "FORMS_WEBHOOK_RETRY_SCHEDULE",
        default_value = "30s,5m,30m",
        value_delimiter = ','
    )]
    webhook_retry_schedule: Vec<humantime::Duration>,
    /// Webhook deliveries in flight at once in this process.
    #[arg(long, env = "FORMS_WEBHOOK_CONCURRENCY", default_value_t = 64)]
    webhook_concurrency: usize,
    /// How often delivery workers look for due deliveries when not notified.
    #[arg(long, env = "FORMS_WEBHOOK_POLL_INTERVAL", default_value = "1s")]
    webhook_poll_interval: humantime::Duration,
    /// Largest hosted-page submission with its files, in bytes.
    #[arg(long, env = "FORMS_MAX_UPLOAD_BYTES", default_value_t = 110 * 1024 * 1024)]
    max_upload_bytes: usize,
    /// Largest REST request body in bytes.
    #[arg(long, env = "FORMS_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    max_body_bytes: usize,
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Create a key (and its account when new); prints the key once.
    Create {
        /// Account name.
        #[arg(long)]
        account: String,
        /// Plan of a new account (an existing account keeps its plan).
        #[arg(long, value_parser = parse_plan)]
        plan: Option<Plan>,
        /// Comma-separated scopes: read, write, admin.
        #[arg(long, value_delimiter = ',', value_parser = parse_scope, required = true)]
        scopes: Vec<Scope>,
        /// Lifetime, e.g. 30d, 12h.
        #[arg(long, value_parser = humantime::parse_duration)]
        expires_in: Option<Duration>,
        /// Print {"key","key_id","account_id"} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a key.
    Revoke {
        /// The key's id (UUID).
        key_id: uuid::Uuid,
    },
    /// List an account's keys (never the secrets).
    List {
        #[arg(long)]
        account: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum AccountsCommand {
    /// Show an account.
    Show { name: String },
    /// Link an identity-provider subject (a session token's `sub`) to an account.
    LinkIdentity {
        name: String,
        #[arg(long)]
        subject: String,
    },
    /// Change an account's plan or response limit.
    Update {
        name: String,
        #[arg(long, value_parser = parse_plan)]
        plan: Option<Plan>,
        /// Responses per calendar month (UTC) across the account's forms.
        #[arg(long, conflicts_with = "default_response_limit")]
        response_limit: Option<i64>,
        /// Go back to the plan's default response limit.
        #[arg(long)]
        default_response_limit: bool,
    },
}

/// Session sign-in as configured: HS256 secret, or a public key file, or none.
fn session_verifier(
    args: &ServeArgs,
) -> Result<Option<forms::accounts::sessions::SessionVerifier>, Error> {
    use forms::accounts::sessions::SessionVerifier;
    if let Some(secret) = &args.session_hs256_secret {
        return Ok(Some(SessionVerifier::hs256(
            &args.session_cookie,
            secret.as_bytes(),
        )));
    }
    match &args.session_public_key_file {
        Some(path) => {
            let pem =
                std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            Ok(Some(SessionVerifier::public_key(
                &args.session_cookie,
                &args.session_algorithm,
                &pem,
            )?))
        }
        None => Ok(None),
    }
}

/// A quota: a number, or "unlimited".
#[derive(Clone, Copy)]
struct Limit(Option<i64>);

impl std::str::FromStr for Limit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("unlimited") {
            return Ok(Self(None));
        }
        match s.parse::<i64>() {
            Ok(n) if n >= 0 => Ok(Self(Some(n))),
            _ => Err(format!(
                "expected a number of 0 or more, or \"unlimited\", got {s:?}"
            )),
        }
    }
}

fn parse_plan(s: &str) -> Result<Plan, String> {
    s.parse().map_err(|e: forms::CoreError| e.to_string())
}

fn parse_scope(s: &str) -> Result<Scope, String> {
    s.trim()
        .parse()
        .map_err(|e: forms::CoreError| e.to_string())
}

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

#[tokio::main]
async fn main() {
    // One TLS provider for the whole process (reqwest and sqlx use rustls).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = Cli::parse();
    init_logging(cli.log_format);
    if let Err(error) = run(cli).await {
        eprintln!("formsd: error: {error}");
        std::process::exit(1);
    }
}

async fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Serve(args) => serve(&cli.db, *args).await,
        Command::Keys(cmd) => with_database(&cli.db, |pool| keys(pool, cmd)).await,
        Command::Accounts(cmd) => with_database(&cli.db, |pool| accounts(pool, cmd)).await,
        Command::Webhooks(cmd) => with_database(&cli.db, |pool| webhooks(pool, cmd)).await,
    }
}

/// The database of this process: DATABASE_URL, or the embedded cluster (started here
/// unless another formsd on the same data directory already runs it), migrated.
struct Database {
    pool: PgPool,
    embedded: Option<EmbeddedPostgres>,
}

impl Database {
    async fn open(args: &DbArgs) -> Result<Self, Error> {
        let (url, embedded) = match &args.database_url {
            Some(url) => (url.clone(), None),
            None => {
                let pg = EmbeddedPostgres::start(&args.data_dir).await?;
                let admin = db::connect(&pg.url(), 1).await?;
                let exists: Option<(i32,)> =
                    sqlx::query_as("SELECT 1 FROM pg_database WHERE datname = 'forms'")
                        .fetch_optional(&admin)
                        .await?;
                if exists.is_none() {
                    sqlx::query("CREATE DATABASE forms").execute(&admin).await?;
                }
                admin.close().await;
                (pg.url_for("forms"), Some(pg))
            }
        };
        let pool = db::connect(&url, args.db_max_connections).await?;
        db::migrate(&pool).await?;
        Ok(Self { pool, embedded })
    }

    async fn close(self) {
        self.pool.close().await;
        if let Some(pg) = self.embedded.filter(EmbeddedPostgres::started_here)
            && let Err(error) = pg.stop().await
        {
            tracing::error!(%error, "stopping embedded PostgreSQL");
        }
    }
}

async fn with_database<F, Fut>(args: &DbArgs, f: F) -> Result<(), Error>
where
    F: FnOnce(PgPool) -> Fut,
    Fut: Future<Output = Result<(), Error>>,
{
    let db = Database::open(args).await?;
    let result = f(db.pool.clone()).await;
    db.close().await;
    result
}

async fn keys(pool: PgPool, cmd: KeysCommand) -> Result<(), Error> {
    match cmd {
        KeysCommand::Create {
            account,
            plan,
            scopes,
            expires_in,
            json,
        } => {
            let expires_at = match expires_in {
                Some(d) => Some(chrono::Utc::now() + chrono::Duration::from_std(d)?),
                None => None,
            };
            let created =
                store::create_key(&pool, &account, plan, &Scopes::new(scopes), expires_at).await?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({
                        "key": created.key,
                        "key_id": created.key_id,
                        "account_id": created.account_id,
                    })
                );
            } else {
                println!("key:        {}", created.key);
                println!("key_id:     {}", created.key_id);
                println!("account_id: {}", created.account_id);
                println!("Store the key now: it is not shown again.");
            }
        }
        KeysCommand::Revoke { key_id } => {
            let row = store::revoke_key(&pool, key_id).await?;
            println!("revoked {} (fsk_{}…)", row.id, row.lookup);
        }
        KeysCommand::List { account, json } => {
            let rows = store::list_keys(&pool, &account).await?;
            let items: Vec<_> = rows
                .iter()
                .map(|k| {
                    serde_json::json!({
                        "key_id": k.id,
                        "prefix": format!("fsk_{}", k.lookup),
                        "scopes": k.scopes,
                        "created_at": k.created_at,
                        "expires_at": k.expires_at,
                        "revoked_at": k.revoked_at,
                    })
                })
                .collect();
            if json {
                println!("{}", serde_json::Value::Array(items));
            } else {
                for k in &rows {
                    let state = match (k.revoked_at, k.expires_at) {
                        (Some(_), _) => "revoked",
                        (None, Some(at)) if at <= chrono::Utc::now() => "expired",
                        _ => "active",
                    };
                    println!(
                        "{}  fsk_{}…  {:<16}  {}",
                        k.id,
                        k.lookup,
                        k.scopes.join(","),
                        state
                    );
                }
            }
        }
    }
    Ok(())
}

async fn accounts(pool: PgPool, cmd: AccountsCommand) -> Result<(), Error> {
    let row = match cmd {
        AccountsCommand::Show { name } => store::find_account(&pool, &name).await?,
        AccountsCommand::LinkIdentity { name, subject } => {
            store::link_identity(&pool, &name, &subject).await?
        }
        AccountsCommand::Update {
            name,
            plan,
            response_limit,
            default_response_limit,
        } => {
            let change = store::AccountChange {
                plan,
                response_limit: if default_response_limit {
                    Some(None)
                } else {
                    response_limit.map(Some)
                },
            };
            store::update_account(&pool, &name, &change).await?
        }
    };
    println!(
        "{}",
        serde_json::json!({
            "id": row.id,
            "name": row.name,
            "plan": row.plan,
            "response_limit": row.response_limit,
            "created_at": row.created_at,
        })
    );
    Ok(())
}

fn delivery_json(d: &forms::pb::Delivery) -> serde_json::Value {
    let ts = |t: &Option<prost_types::Timestamp>| t.as_ref().and_then(forms::pb::convert::iso8601);
    let status = forms::pb::DeliveryStatus::try_from(d.status)
        .map(|s| {
            s.as_str_name()
                .trim_start_matches("DELIVERY_STATUS_")
                .to_lowercase()
        })
        .unwrap_or_default();
    serde_json::json!({
        "id": d.id,
        "event": d.event,
        "status": status,
        "created_at": ts(&d.created_at),
        "next_attempt_at": ts(&d.next_attempt_at),
        "attempts": d.attempts.iter().map(|a| serde_json::json!({
            "attempted_at": ts(&a.attempted_at),
            "status_code": a.status_code,
            "duration_ms": a.duration_ms,
            "error": a.error,
        })).collect::<Vec<_>>(),
    })
}

async fn webhooks(pool: PgPool, cmd: WebhooksCommand) -> Result<(), Error> {
    use forms::pb;
    use forms::webhooks::service::WebhookAdmin;
    match cmd {
        WebhooksCommand::Update {
            id,
            name,
            url,
            events,
            active,
            allow_private,
        } => {
            let mut webhook = pb::Webhook::default();
            let mut paths = Vec::new();
            if let Some(name) = name {
                webhook.name = name;
                paths.push("name".to_owned());
            }
            if let Some(url) = url {
                webhook.url = url;
                paths.push("url".to_owned());
            }
            if let Some(events) = events {
                webhook.events = events;
                paths.push("events".to_owned());
            }
            if let Some(active) = active {
                webhook.is_active = active;
                paths.push("is_active".to_owned());
            }
            let request = pb::UpdateWebhookRequest {
                id,
                webhook: Some(webhook),
                update_mask: Some(prost_types::FieldMask { paths }),
            };
            let reply = WebhookAdmin::new(pool, allow_private)
                .update(request)
                .await?;
            if let Some(w) = reply.webhook {
                println!(
                    "{}",
                    serde_json::json!({"id": w.id, "name": w.name, "url": w.url, "events": w.events, "is_active": w.is_active})
                );
            }
        }
        WebhooksCommand::Deliveries { id, page } => {
            let request = pb::ListDeliveriesRequest {
                webhook_id: id,
                page,
                per_page: Some(100),
            };
            let reply = WebhookAdmin::new(pool, false).deliveries(request).await?;
            for d in &reply.deliveries {
                println!("{}", delivery_json(d));
            }
        }
        WebhooksCommand::Retry { id } => {
            let reply = WebhookAdmin::new(pool, false)
                .retry(pb::RetryDeliveryRequest { id })
                .await?;
            if let Some(d) = reply.delivery {
                println!("{}", delivery_json(&d));
            }
        }
    }
    Ok(())
}

/// Resolves when SIGINT or SIGTERM arrives.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

async fn serve(db_args: &DbArgs, args: ServeArgs) -> Result<(), Error> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let stopped = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };

    let database = if args.role == Role::Edge {
        None
    } else {
        Some(Database::open(db_args).await?)
    };

    let mut tasks = tokio::task::JoinSet::new();
    let mut transport: Option<Transport> = None;
    if let Some(database) = &database {
        let core = Core::start(
            database.pool.clone(),
            CoreConfig {
                pro_rate_limit: args.pro_rate_limit,
                enterprise_rate_limit: args.enterprise_rate_limit,
                rate_window_secs: args.rate_window_secs,
                auth_failures_per_minute: args.auth_failures_per_minute,
                admin_token: args.admin_token.clone(),
                trusted_proxies: args.trusted_proxies.clone(),
                hosted_submissions_per_minute: args.hosted_submissions_per_minute,
                sessions: session_verifier(&args)?,
                file_store_url: args.file_store_url.clone(),
                free_response_limit: args.free_response_limit.0,
                pro_response_limit: args.pro_response_limit.0,
                enterprise_response_limit: args.enterprise_response_limit.0,
                idempotency_ttl: args.idempotency_ttl.into(),
                delivery: DeliveryConfig {
                    allow_private: args.webhook_allow_private,
                    timeout: args.webhook_timeout.into(),
                    retry_schedule: args
                        .webhook_retry_schedule
                        .iter()
                        .map(|d| (*d).into())
                        .collect(),
                    concurrency: args.webhook_concurrency,
                    poll_interval: args.webhook_poll_interval.into(),
                },
            },
        )
        .await?;
        let maintenance = core.spawn_maintenance();
        let delivery = core.spawn_delivery(stop_rx.clone())?;
        let routes = core.routes().await?;
        let listener = TcpListener::bind(args.grpc_addr).await?;
        tracing::info!(addr = %listener.local_addr()?, "core listening (gRPC)");
        // Without TCP_NODELAY, small gRPC replies wait for delayed ACKs (~40 ms each).
        let incoming =
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
        let grpc = tonic::transport::Server::builder()
            .add_routes(routes.clone())
            .serve_with_incoming_shutdown(incoming, stopped(stop_rx.clone()));
        tasks.spawn(async move {
            let result = grpc.await.map_err(Error::from);
            maintenance.abort();
            // In-flight webhook attempts finish and are recorded before the pool closes.
            let _ = delivery.await;
            result
        });
        if args.role == Role::All {
            // In-process: the edge's gRPC clients call the core's routes directly.
            let local = ServiceExt::<http::Request<tonic::body::Body>>::map_err(
                routes,
                |never: Infallible| -> TransportError { match never {} },
            );
            transport = Some(Transport::new(local));
        }
    }
    if args.role == Role::Edge {
        let channel = tonic::transport::Endpoint::from_shared(args.core_url.clone())?
            .connect_timeout(Duration::from_secs(5))
            .connect_lazy();
        transport = Some(Transport::new(
            channel.map_err(|e| TransportError(BoxError::from(e))),
        ));
    }
    if let Some(core) = transport {
        let app = routes::router(AppState {
            core,
            max_body_bytes: args.max_body_bytes,
            max_upload_bytes: args.max_upload_bytes,
        });
        let listener = TcpListener::bind(args.http_addr).await?;
        tracing::info!(addr = %listener.local_addr()?, "edge listening (REST)");
        let rx = stop_rx.clone();
        tasks.spawn(async move {
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(stopped(rx))
            .await
            .map_err(Error::from)
        });
    }

    let mut result = Ok(());
    tokio::select! {
        _ = shutdown_signal() => tracing::info!("shutting down"),
        Some(done) = tasks.join_next() => {
            result = done.map_err(Error::from).and_then(|r| r);
        }
    }
    let _ = stop_tx.send(true);
    while let Some(done) = tasks.join_next().await {
        if let Err(error) = done.map_err(Error::from).and_then(|r| r) {
            tracing::error!(%error, "server task failed");
        }
    }
    if let Some(database) = database {
        database.close().await;
    }
    result
}

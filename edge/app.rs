//! Assembles a `formsd` process from its flags and bound listeners: the database, the
//! gRPC core, the REST edge and the background workers; reports its addresses and runs
//! until a stop signal. With `main.rs`, this is the one file of `edge/` that names the
//! core's server types: everything else reaches the core through `forms::pb` clients.

use crate::config::{DbArgs, Role, ServeArgs};
use crate::http::state::{AppState, Transport, TransportError};
use crate::http::tls::{self, Alpn, Tls};
use crate::http::{metrics, server as http_server};
use forms::accounts::sessions::SessionVerifier;
use forms::config::{DeliveryConfig, ExportLimits, PartialLimits, ReadLimits};
use forms::db::Database;
use forms::notifications::smtp::SmtpSettings;
use forms::{Core, CoreConfig, telemetry};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;
use tracing::Instrument;

/// Failure of the process as a whole (start-up, a server task), shown to the operator.
pub(crate) type Error = Box<dyn std::error::Error + Send + Sync>;

/// The listeners of a process; `None` for a half its role does not run.
pub(crate) struct Listeners {
    pub http: Option<TcpListener>,
    pub grpc: Option<TcpListener>,
    pub metrics: Option<TcpListener>,
}

impl Listeners {
    /// Binds the addresses of `args` that its role needs.
    pub(crate) async fn bind(args: &ServeArgs) -> Result<Self, Error> {
        let http = match args.role.runs_edge() {
            true => Some(TcpListener::bind(args.http_addr).await?),
            false => None,
        };
        let grpc = match args.role.runs_core() {
            true => Some(TcpListener::bind(args.grpc_addr).await?),
            false => None,
        };
        let metrics = match args.metrics_addr {
            Some(addr) => Some(TcpListener::bind(addr).await?),
            None => None,
        };
        Ok(Self {
            http,
            grpc,
            metrics,
        })
    }
}

/// A `formsd serve` process, assembled and listening, not yet serving.
pub(crate) struct Application {
    http_addr: Option<SocketAddr>,
    grpc_addr: Option<SocketAddr>,
    metrics_addr: Option<SocketAddr>,
    database: Option<Database>,
    tasks: JoinSet<Result<(), Error>>,
    stop: watch::Sender<bool>,
    shutdown_timeout: Duration,
    /// Tasks that the server tasks wait for, stopped with them at the shutdown timeout.
    background: Vec<tokio::task::AbortHandle>,
    /// The core of this process (role all or core), and its accounting tasks: the last
    /// usage counts are written once requests have stopped.
    core: Option<(Core, Vec<tokio::task::JoinHandle<()>>)>,
}

/// Resolves once `stop` turns true.
async fn stopped(mut stop: watch::Receiver<bool>) {
    let _ = stop.wait_for(|stop| *stop).await;
}

impl Application {
    /// Opens the database (when the role runs the core), binds the flags' addresses and
    /// assembles the process.
    pub(crate) async fn build(db: &DbArgs, args: ServeArgs) -> Result<Self, Error> {
        args.check_secrets()?;
        let listeners = Listeners::bind(&args).await?;
        Self::with_listeners(db, args, listeners).await
    }

    /// Assembles the process on listeners the caller bound.
    pub(crate) async fn with_listeners(
        db: &DbArgs,
        args: ServeArgs,
        listeners: Listeners,
    ) -> Result<Self, Error> {
        let (stop, _) = watch::channel(false);
        let mut app = Self {
            http_addr: None,
            grpc_addr: None,
            metrics_addr: None,
            database: None,
            tasks: JoinSet::new(),
            stop,
            shutdown_timeout: args.shutdown_timeout.into(),
            background: Vec::new(),
            core: None,
        };
        match app.assemble(db, &args, listeners).await {
            Ok(()) => Ok(app),
            Err(error) => {
                // Nothing half-started is left behind (an embedded cluster included).
                app.run_until(std::future::ready(())).await?;
                Err(error)
            }
        }
    }

    async fn assemble(
        &mut self,
        db: &DbArgs,
        args: &ServeArgs,
        listeners: Listeners,
    ) -> Result<(), Error> {
        // Before anything starts: a pair that does not load stops the process here.
        let tls = args.tls_files().map(Tls::load).transpose()?;
        let acceptor = |alpn| tls.as_ref().map(|tls| tls.acceptor(alpn)).transpose();
        let (grpc_tls, http_tls) = (acceptor(Alpn::H2)?, acceptor(Alpn::Http1)?);
        let mut transport = None;
        if let Some(listener) = listeners.grpc {
            let database = open_database(db, &db.database_replica_url).await?;
            let replicas = database.replicas().clone();
            self.database = Some(database);
            let core = Core::start(replicas, core_config(args)?).await?;
            let maintenance = core.spawn_maintenance();
            let file_sweep = core.spawn_file_sweep();
            self.core = Some((core.clone(), core.spawn_accounting()));
            let readiness = core.spawn_readiness();
            let delivery = core.spawn_delivery(self.stop.subscribe())?;
            let notifications = core.spawn_notifications(self.stop.subscribe()).await?;
            let routes = core.routes().await?;
            let addr = listener.local_addr()?;
            tracing::info!(%addr, tls = grpc_tls.is_some(), "core listening (gRPC)");
            self.grpc_addr = Some(addr);
            let server = tonic::transport::Server::builder()
                .trace_fn(|req| telemetry::grpc_span(req.headers(), req.uri().path()))
                .add_routes(routes.clone());
            let stop = stopped(self.stop.subscribe());
            let grpc: Pin<Box<dyn Future<Output = _> + Send>> = match grpc_tls {
                Some(acceptor) => Box::pin(
                    server.serve_with_incoming_shutdown(tls::incoming(listener, acceptor), stop),
                ),
                None => {
                    // Without TCP_NODELAY, small gRPC replies wait for delayed ACKs (~40 ms each).
                    let incoming = tonic::transport::server::TcpIncoming::from(listener)
                        .with_nodelay(Some(true));
                    Box::pin(server.serve_with_incoming_shutdown(incoming, stop))
                }
            };
            self.tasks.spawn(async move {
                let result = grpc.await.map_err(Error::from);
                maintenance.abort();
                file_sweep.abort();
                readiness.abort();
                result
            });
            // In-flight webhook attempts finish and are recorded before the pool closes
            // (or are stopped at the shutdown timeout, and retried after their lease).
            self.background.push(delivery.abort_handle());
            self.tasks
                .spawn(async move { delivery.await.map_err(Error::from) });
            if let Some(notifications) = notifications {
                // Mails in flight are handed to the relay and recorded the same way.
                self.background.push(notifications.abort_handle());
                self.tasks
                    .spawn(async move { notifications.await.map_err(Error::from) });
            }
            if args.role == Role::All {
                transport = Some(in_process(routes));
            }
        }
        if args.role == Role::Edge {
            transport = Some(crate::http::remote::transport(args)?);
        }
        if let (Some(listener), Some(core)) = (listeners.http, transport) {
            let router = crate::router::router(AppState {
                core,
                max_body_bytes: args.max_body_bytes,
                max_upload_bytes: args.max_upload_bytes,
                frame_ancestors: args.frame_ancestors.as_str().into(),
                oidc: args.oidc_issuer.is_some(),
                provider_cookie: args.session_hs256_secret.is_some()
                    || args.session_public_key_file.is_some(),
                public_url: args.public_url.as_deref().map(Into::into),
            });
            let addr = listener.local_addr()?;
            tracing::info!(%addr, tls = http_tls.is_some(), "edge listening (REST)");
            // What a new owner looks for first: where the dashboard is, and how to get in.
            let dashboard = match args.public_url.as_deref() {
                Some(url) => format!("{}/app/", url.trim_end_matches('/')),
                None => {
                    let scheme = if http_tls.is_some() { "https" } else { "http" };
                    format!("{scheme}://{addr}/app/")
                }
            };
            tracing::info!(
                %dashboard,
                "dashboard: sign in with the link `formsd accounts sign-in-link ACCOUNT` prints"
            );
            self.http_addr = Some(addr);
            let limits = http_server::Limits {
                header_timeout: args.http_header_timeout.into(),
                body_timeout: args.http_body_timeout.into(),
                max_connections: usize::try_from(args.http_max_connections)?,
            };
            let proxies = crate::http::forwarded::Proxies {
                trusted: args.trusted_proxies.clone().into(),
                header: args.proxy_header,
            };
            let stop = stopped(self.stop.subscribe());
            self.tasks.spawn(async move {
                http_server::serve(listener, router, limits, proxies, http_tls, stop)
                    .await
                    .map_err(Error::from)
            });
        }
        if let Some(tls) = tls {
            let interval = args.tls_reload_interval.into();
            let stop = stopped(self.stop.subscribe());
            self.tasks.spawn(async move {
                tls.reload_every(interval, stop).await;
                Ok(())
            });
        }
        // Last: the pool whose connections it reports exists by now (unless edge-only).
        if let Some(listener) = listeners.metrics {
            let handle = metrics::install()?;
            let pool = self.database.as_ref().map(|db| db.pool().clone());
            let addr = listener.local_addr()?;
            tracing::info!(%addr, "metrics listening (Prometheus)");
            self.metrics_addr = Some(addr);
            let stop = stopped(self.stop.subscribe());
            let sample: metrics::Sample = Arc::new(move || {
                let pool = pool.clone();
                Box::pin(async move {
                    if let Some(pool) = pool {
                        forms::telemetry::sample_database(&pool).await;
                    }
                })
            });
            self.tasks.spawn(async move {
                metrics::serve(listener, handle, sample, stop)
                    .await
                    .map_err(Error::from)
            });
        }
        Ok(())
    }

    /// Address of the REST edge, when this process runs it.
    pub(crate) fn http_addr(&self) -> Option<SocketAddr> {
        self.http_addr
    }

    /// Address of the metrics endpoint, when configured.
    pub(crate) fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// Address of the gRPC core, when this process runs it.
    pub(crate) fn grpc_addr(&self) -> Option<SocketAddr> {
        self.grpc_addr
    }

    /// Serves until `signal` resolves or a server fails; then stops accepting, lets
    /// in-flight work finish, and closes the database.
    pub(crate) async fn run_until(mut self, signal: impl Future<Output = ()>) -> Result<(), Error> {
        let mut result = Ok(());
        tokio::select! {
            () = signal => tracing::info!("shutting down"),
            Some(done) = self.tasks.join_next() => {
                result = done.map_err(Error::from).and_then(|r| r);
            }
        }
        let _ = self.stop.send(true);
        let drained = tokio::time::timeout(self.shutdown_timeout, async {
            while let Some(done) = self.tasks.join_next().await {
                if let Err(error) = done.map_err(Error::from).and_then(|r| r) {
                    tracing::error!(%error, "server task failed");
                }
            }
        })
        .await;
        if drained.is_err() {
            // What is still running was not acknowledged to anyone: a request's client
            // sees its connection drop, a delivery's lease runs out and it is retried.
            tracing::warn!(
                timeout = ?self.shutdown_timeout,
                "work in flight did not finish in time; stopping it"
            );
            self.tasks.shutdown().await;
            for task in &self.background {
                task.abort();
            }
        }
        if let Some((core, accounting)) = self.core {
            for task in accounting {
                task.abort();
            }
            core.finish_accounting().await;
        }
        if let Some(database) = self.database {
            database.close().await;
        }
        result
    }
}

async fn open_database(db: &DbArgs, replica_urls: &[String]) -> Result<Database, Error> {
    Ok(Database::open(
        db.database_url.as_deref(),
        replica_urls,
        &db.data_dir,
        db.db_max_connections,
        db.db_acquire_timeout.into(),
        db.db_start_timeout.into(),
    )
    .await?)
}

/// The edge's way to a core in the same process: its routes, called without a network
/// hop, each call in its `grpc` span as on the network server.
fn in_process(routes: tonic::service::Routes) -> Transport {
    let traced = tower::service_fn(move |req: http::Request<tonic::body::Body>| {
        let span = telemetry::grpc_span(req.headers(), req.uri().path());
        routes.clone().oneshot(req).instrument(span)
    });
    Transport::new(ServiceExt::<http::Request<tonic::body::Body>>::map_err(
        traced,
        |never: Infallible| -> TransportError { match never {} },
    ))
}

/// The core's settings from the flags.
fn core_config(args: &ServeArgs) -> Result<CoreConfig, Error> {
    Ok(CoreConfig {
        pro_rate_limit: args.pro_rate_limit,
        enterprise_rate_limit: args.enterprise_rate_limit,
        rate_window_secs: args.rate_window_secs,
        auth_failures_per_minute: args.auth_failures_per_minute,
        admin_token: args.admin_token.clone(),
        edge_secret: args.edge_secret.clone(),
        public_url: args.public_url.clone(),
        hosted_submissions_per_minute: args.hosted_submissions_per_minute,
        confirmation_mails_per_form: args.confirmation_mails_per_form,
        sessions: session_verifier(args)?.map(|verifier| {
            verifier.with_claims(
                args.session_audience.as_deref(),
                args.session_issuer.as_deref(),
            )
        }),
        file_store_url: args.file_store_url.clone(),
        free_response_limit: args.free_response_limit.0,
        pro_response_limit: args.pro_response_limit.0,
        enterprise_response_limit: args.enterprise_response_limit.0,
        idempotency_ttl: args.idempotency_ttl.into(),
        delivery_retention: args.delivery_retention.into(),
        max_request_bytes: args.max_body_bytes,
        max_upload_bytes: args.max_upload_bytes,
        staged_file_grace: args.limits.staged_file_grace.into(),
        partial_retention: args.limits.partial_retention.into(),
        audit_retention: args.limits.audit_retention.into(),
        exports: ExportLimits {
            per_account: args.limits.exports_per_account,
            per_instance: args.limits.exports_per_instance,
            stall_timeout: args.limits.export_stall_timeout.into(),
        },
        reads: ReadLimits {
            per_account: args.limits.reads_per_account,
            per_instance: args.limits.reads_per_instance,
            statement_timeout: Some(args.limits.db_statement_timeout.into())
                .filter(|t: &Duration| !t.is_zero()),
        },
        partials: PartialLimits {
            per_form: args.limits.partials_per_form,
            per_account: args.limits.partials_per_account,
            per_visitor: args.limits.partials_per_visitor,
            file_bytes_per_account: args.limits.partial_file_bytes_per_account,
        },
        dashboard: forms::SessionPolicy {
            idle_timeout: args.session_idle_timeout.into(),
            lifetime: args.session_lifetime.into(),
        },
        sign_in_attempts_per_minute: args.sign_in_attempts_per_minute,
        form_view_bytes: args.form_view_bytes,
        oidc: match (
            &args.oidc_issuer,
            &args.oidc_client_id,
            &args.oidc_client_secret,
        ) {
            (Some(issuer), Some(client_id), Some(client_secret)) => Some(forms::OidcSettings {
                issuer: issuer.clone(),
                client_id: client_id.clone(),
                client_secret: client_secret.clone(),
            }),
            _ => None,
        },
        smtp: args.smtp_url.as_ref().map(|url| SmtpSettings {
            url: url.clone(),
            from: args.smtp_from.clone().unwrap_or_default(),
            password: args.smtp_password.clone(),
        }),
        delivery: DeliveryConfig {
            allow_private: args.webhook_allow_private,
            timeout: args.webhook_timeout.into(),
            retry_schedule: args
                .webhook_retry_schedule
                .iter()
                .map(|d| (*d).into())
                .collect(),
            concurrency: args.webhook_concurrency,
            concurrency_per_account: args.webhook_concurrency_per_account,
            poll_interval: args.webhook_poll_interval.into(),
        },
    })
}

/// Session sign-in as configured: HS256 secret, or a public key file, or none.
fn session_verifier(args: &ServeArgs) -> Result<Option<SessionVerifier>, Error> {
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

/// The core's admin services for one operator command, in this process: a core on the
/// database with a one-off operator token that never leaves the process.
pub(crate) struct Operator {
    pub transport: Transport,
    pub admin_token: String,
    database: Database,
}

impl Operator {
    /// Opens the database and assembles the core's routes. `allow_private` lets webhook
    /// edits target http:// and private addresses (development only).
    pub(crate) async fn open(db: &DbArgs, allow_private: bool) -> Result<Self, Error> {
        // Operator commands read nothing a replica could serve.
        let database = open_database(db, &[]).await?;
        let admin_token = hex::encode(rand::random::<[u8; 32]>());
        let mut config = CoreConfig {
            admin_token: Some(admin_token.clone()),
            ..core_config(&ServeArgs::from_defaults()?)?
        };
        config.delivery.allow_private = allow_private;
        let routes = async {
            let core = Core::start(database.replicas().clone(), config).await?;
            Ok::<_, Error>(core.routes().await?)
        }
        .await;
        match routes {
            Ok(routes) => Ok(Self {
                transport: in_process(routes),
                admin_token,
                database,
            }),
            Err(error) => {
                database.close().await;
                Err(error)
            }
        }
    }

    /// Closes the database (stopping an embedded cluster started for the command).
    pub(crate) async fn close(self) {
        self.database.close().await;
    }
}

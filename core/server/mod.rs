//! Assembles the core: its gRPC services over one pool, plus health checking and
//! server reflection, as a set of routes that a tonic server (or an in-process client)
//! can use. The instance's background tasks are `tasks`.

mod tasks;

use crate::accounts::service::Admin;
use crate::config::CoreConfig;
use crate::dashboard::owner::Owner;
use crate::dashboard::service::Sessions;
use crate::db;
use crate::error::CoreError;
use crate::files::store::FileStore;
use crate::forms::service::Forms;
use crate::gate::Gate;
use crate::gateway::Gateway;
use crate::hosted::Hosted;
use crate::notifications::service::NotificationAdmin;
use crate::notifications::smtp::Mailer;
use crate::outbox::bell::Bell;
use crate::pb::hosted_forms_service_server::HostedFormsServiceServer;
use crate::pb::notification_admin_service_server::NotificationAdminServiceServer;
use crate::pb::owner_service_server::OwnerServiceServer;
use crate::pb::responses_service_server::ResponsesServiceServer;
use crate::pb::sessions_service_server::SessionsServiceServer;
use crate::pb::webhook_admin_service_server::WebhookAdminServiceServer;
use crate::pb::webhooks_service_server::WebhooksServiceServer;
use crate::pb::{
    self, admin_service_server::AdminServiceServer, forms_service_server::FormsServiceServer,
    gateway_service_server::GatewayServiceServer, usage_service_server::UsageServiceServer,
};
use crate::responses::cursor::CursorCodec;
use crate::responses::service::Responses;
use crate::rpc::AdminAuth;
use crate::secrets;
use crate::usage::Usage;
use crate::webhooks::service::{WebhookAdmin, Webhooks};
use sqlx::PgPool;
use std::sync::Arc;
use tonic::service::Routes;

/// Largest gRPC message that carries a file out (downloads): the largest file a field
/// may take, with room for the rest of the message.
pub(crate) const MAX_FILE_MESSAGE: usize = 128 * 1024 * 1024;

/// Room in a message for what surrounds its payload (ids, names, metadata fields).
const MESSAGE_HEADROOM: usize = 64 * 1024;

/// The largest message each service decodes: API requests as large as the REST body
/// limit (at least tonic's default of 4 MiB), hosted submissions as large as the
/// largest upload. Nothing larger is read into memory.
fn decoding_limits(config: &CoreConfig) -> (usize, usize) {
    let api = config.max_request_bytes.max(4 * 1024 * 1024) + MESSAGE_HEADROOM;
    let hosted = config.max_upload_bytes + MESSAGE_HEADROOM;
    (api, hosted)
}

/// The core of the service: state shared by every gRPC service.
#[derive(Clone)]
pub struct Core {
    pool: PgPool,
    /// Where the reads that may move run: a replica caught up with them, or the primary.
    replicas: db::Replicas,
    config: Arc<CoreConfig>,
    gate: Gate,
    cursors: CursorCodec,
    hosted: Hosted,
    file_store: FileStore,
    /// Connections the request path keeps between requests.
    lanes: db::lanes::Lanes,
    /// Submissions (API and hosted page) stored together per form (shared by every
    /// `routes()`).
    batcher: crate::responses::create::Batcher,
    /// Wakes the delivery workers when a create wrote deliveries.
    deliveries: Bell,
    /// Reads of a form shared by the requests that arrive together (shared by every
    /// `routes()`, as the batcher).
    form_reads: db::shared::Shared<(uuid::Uuid, uuid::Uuid), Option<pb::Form>>,
    /// The statuses served by `grpc.health.v1`; the overall one ("") follows the database.
    health: tonic_health::server::HealthReporter,
    /// Dashboard sign-in attempts per address and account (shared by every `routes()`).
    sign_in: Arc<crate::dashboard::throttle::SignInThrottle>,
    /// The OpenID provider of dashboard sign-in, with its cached documents.
    oidc: Option<Arc<crate::dashboard::oidc::Provider>>,
    /// The SMTP relay of mailed sign-in links; an unusable configuration is refused by
    /// `spawn_notifications`.
    sign_in_links: Option<crate::dashboard::link_mail::LinkMail>,
}

/// Failure to assemble the gRPC routes.
#[derive(Debug, thiserror::Error)]
#[error("building gRPC reflection: {0}")]
pub struct RoutesError(#[from] tonic_reflection::server::Error);

/// Failure to start the notification workers.
#[derive(Debug, thiserror::Error)]
pub enum NotificationsError {
    #[error(transparent)]
    Smtp(#[from] crate::notifications::smtp::SmtpConfigError),
    #[error(transparent)]
    Database(#[from] CoreError),
}

impl Core {
    /// Sets up the core on a migrated database (loading the shared secrets): writes on
    /// its primary, the reads that may move where `replicas` says.
    pub async fn start(replicas: db::Replicas, config: CoreConfig) -> Result<Self, CoreError> {
        let pool = replicas.primary().clone();
        let config = Arc::new(config);
        let sign_in = Arc::new(crate::dashboard::throttle::SignInThrottle::per_minute(
            config.sign_in_attempts_per_minute,
        ));
        let oidc = match &config.oidc {
            Some(settings) => Some(Arc::new(crate::dashboard::oidc::Provider::new(
                settings.clone(),
            )?)),
            None => None,
        };
        let sign_in_links = match (config.smtp.as_ref(), config.public_url.as_deref()) {
            (Some(smtp), Some(base)) => Mailer::new(smtp).ok().map(|mailer| {
                crate::dashboard::link_mail::LinkMail::start(
                    pool.clone(),
                    sign_in.clone(),
                    mailer,
                    base,
                )
            }),
            // Without a public URL a link could only point where the caller says: none is mailed.
            _ => None,
        };
        let gate = Gate::new(pool.clone(), config.clone());
        let cursors = CursorCodec::new(secrets::get_or_create(&pool, "cursor-signing").await?);
        let token_key = secrets::get_or_create(&pool, "hosted-start-token").await?;
        let file_store = FileStore::from_url(config.file_store_url.as_deref())?;
        let lanes = db::lanes::Lanes::new(pool.clone());
        lanes.spawn_trim();
        // Rung by the one-statement creates that write deliveries.
        let deliveries = Bell::new(pool.clone(), crate::webhooks::outbox::CHANNEL);
        let batcher = crate::responses::create::Batcher::new(
            lanes.clone(),
            config.clone(),
            deliveries.clone(),
        );
        let hosted = Hosted::new(
            pool.clone(),
            config.clone(),
            token_key,
            file_store.clone(),
            batcher.clone(),
        );
        Ok(Self {
            lanes,
            health: tonic_health::server::HealthReporter::new(),
            pool,
            replicas,
            config,
            gate,
            cursors,
            hosted,
            file_store,
            batcher,
            deliveries,
            form_reads: db::shared::Shared::default(),
            sign_in,
            oidc,
            sign_in_links,
        })
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Every gRPC service of the core, with health and reflection (v1 and v1alpha).
    pub async fn routes(&self) -> Result<Routes, RoutesError> {
        let reporter = self.health.clone();
        let health = tonic_health::pb::health_server::HealthServer::new(
            tonic_health::server::HealthService::from_health_reporter(reporter.clone()),
        );
        reporter.set_serving::<FormsServiceServer<Forms>>().await;
        reporter
            .set_serving::<ResponsesServiceServer<Responses>>()
            .await;
        reporter.set_serving::<UsageServiceServer<Usage>>().await;
        reporter
            .set_serving::<GatewayServiceServer<Gateway>>()
            .await;
        reporter
            .set_serving::<WebhooksServiceServer<Webhooks>>()
            .await;
        reporter.set_serving::<AdminServiceServer<Admin>>().await;
        reporter
            .set_serving::<SessionsServiceServer<Sessions>>()
            .await;
        reporter.set_serving::<OwnerServiceServer<Owner>>().await;
        reporter
            .set_serving::<WebhookAdminServiceServer<WebhookAdmin>>()
            .await;
        reporter
            .set_serving::<NotificationAdminServiceServer<NotificationAdmin>>()
            .await;
        let reflection = || {
            tonic_reflection::server::Builder::configure()
                .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        };
        let forms = Forms {
            gate: self.gate.clone(),
            pool: self.pool.clone(),
            replicas: self.replicas.clone(),
            lanes: self.lanes.clone(),
            reads: self.form_reads.clone(),
            idempotency_ttl: self.config.idempotency_ttl,
            file_store: self.file_store.clone(),
        };
        let responses = Responses {
            gate: self.gate.clone(),
            batcher: self.batcher.clone(),
            pool: self.pool.clone(),
            replicas: self.replicas.clone(),
            config: self.config.clone(),
            cursors: self.cursors.clone(),
            file_store: self.file_store.clone(),
        };
        let usage = Usage {
            gate: self.gate.clone(),
            replicas: self.replicas.clone(),
        };
        let gateway = Gateway {
            gate: self.gate.clone(),
        };
        let auth = AdminAuth {
            config: self.config.clone(),
        };
        let admin = Admin {
            pool: self.pool.clone(),
            auth: auth.clone(),
            keys: self.gate.keys().clone(),
        };
        let allow_private = self.config.delivery.allow_private;
        let webhooks = Webhooks {
            gate: self.gate.clone(),
            pool: self.pool.clone(),
            replicas: self.replicas.clone(),
            allow_private,
        };
        let notification_admin = NotificationAdmin {
            pool: self.pool.clone(),
            auth: auth.clone(),
        };
        let webhook_admin = WebhookAdmin {
            pool: self.pool.clone(),
            auth: auth.clone(),
            allow_private,
        };
        let sessions = Sessions {
            gate: self.gate.clone(),
            pool: self.pool.clone(),
            config: self.config.clone(),
            auth: auth.clone(),
            throttle: self.sign_in.clone(),
            oidc: self.oidc.clone(),
            link_mail: self.sign_in_links.clone(),
        };
        let members = crate::members::service::Members {
            gate: self.gate.clone(),
            sessions: sessions.clone(),
        };
        let owner = Owner {
            gate: self.gate.clone(),
            pool: self.pool.clone(),
            replicas: self.replicas.clone(),
            allow_private,
        };
        let audit = crate::audit::service::Audit {
            gate: self.gate.clone(),
            pool: self.pool.clone(),
        };
        let audit_admin = crate::audit::service::AuditAdmin {
            pool: self.pool.clone(),
            auth: auth.clone(),
        };
        let archives = crate::archive::service::Archives {
            pool: self.pool.clone(),
            auth: auth.clone(),
            files: self.file_store.clone(),
            config: self.config.clone(),
        };
        let (api, hosted) = decoding_limits(&self.config);
        let mut builder = Routes::builder();
        builder
            .add_service(FormsServiceServer::new(forms).max_decoding_message_size(api))
            .add_service(
                ResponsesServiceServer::new(responses)
                    .max_decoding_message_size(api)
                    .max_encoding_message_size(MAX_FILE_MESSAGE),
            )
            .add_service(UsageServiceServer::new(usage).max_decoding_message_size(api))
            .add_service(GatewayServiceServer::new(gateway).max_decoding_message_size(api))
            .add_service(WebhooksServiceServer::new(webhooks).max_decoding_message_size(api))
            .add_service(
                HostedFormsServiceServer::new(self.hosted.clone())
                    .max_decoding_message_size(hosted),
            )
            .add_service(AdminServiceServer::new(admin).max_decoding_message_size(api))
            .add_service(
                WebhookAdminServiceServer::new(webhook_admin).max_decoding_message_size(api),
            )
            .add_service(
                NotificationAdminServiceServer::new(notification_admin)
                    .max_decoding_message_size(api),
            )
            .add_service(SessionsServiceServer::new(sessions).max_decoding_message_size(api))
            .add_service(OwnerServiceServer::new(owner).max_decoding_message_size(api))
            .add_service(
                pb::members_service_server::MembersServiceServer::new(members)
                    .max_decoding_message_size(api),
            )
            .add_service(pb::audit_service_server::AuditServiceServer::new(audit))
            .add_service(pb::audit_admin_service_server::AuditAdminServiceServer::new(audit_admin))
            .add_service(
                pb::account_archive_service_server::AccountArchiveServiceServer::new(archives)
                    .max_decoding_message_size(api),
            )
            .add_service(health)
            .add_service(reflection().build_v1()?)
            .add_service(reflection().build_v1alpha()?);
        let router = builder
            .routes()
            .into_axum_router()
            .layer(axum::middleware::from_fn(crate::telemetry::grpc_metrics))
            .layer(axum::middleware::from_fn(
                crate::gate::permissions::mark_method,
            ));
        Ok(Routes::from(router))
    }
}

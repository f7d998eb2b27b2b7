//! Shared state of the edge: the way to the core and the edge's own limits.

use forms::pb::{
    forms_service_client::FormsServiceClient, gateway_service_client::GatewayServiceClient,
    hosted_forms_service_client::HostedFormsServiceClient,
    owner_service_client::OwnerServiceClient, responses_service_client::ResponsesServiceClient,
    sessions_service_client::SessionsServiceClient, usage_service_client::UsageServiceClient,
    webhooks_service_client::WebhooksServiceClient,
};
use tower::BoxError;
use tower::util::BoxCloneSyncService;

/// A gRPC transport to the core: a network channel, or the core's routes in-process.
pub(crate) type Transport = BoxCloneSyncService<
    http::Request<tonic::body::Body>,
    http::Response<tonic::body::Body>,
    TransportError,
>;

/// A failure to reach the core. A concrete type rather than `BoxError`: tonic's
/// generic clients need an error type whose conversion holds for every lifetime.
#[derive(Debug, thiserror::Error)]
#[error("core transport: {0}")]
pub(crate) struct TransportError(#[from] pub BoxError);

/// Largest gRPC message carrying files (the core accepts as much).
const MAX_FILE_MESSAGE: usize = 128 * 1024 * 1024;

#[derive(Clone)]
pub(crate) struct AppState {
    pub core: Transport,
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Largest hosted-page submission (with its files), in bytes.
    pub max_upload_bytes: usize,
    /// CSP `frame-ancestors` of hosted pages: who may embed them.
    pub frame_ancestors: std::sync::Arc<str>,
    /// Whether OpenID Connect sign-in is configured (`--oidc-issuer`): the sign-in page
    /// offers it.
    pub oidc: bool,
    /// Whether the identity provider's session cookie signs in (`--session-hs256-secret`
    /// or `--session-public-key-file`): the sign-in page offers it.
    pub provider_cookie: bool,
    /// `--public-url`: where browsers reach the dashboard.
    pub public_url: Option<std::sync::Arc<str>>,
}

impl AppState {
    pub(crate) fn forms(&self) -> FormsServiceClient<Transport> {
        FormsServiceClient::new(self.core.clone())
    }

    pub(crate) fn responses(&self) -> ResponsesServiceClient<Transport> {
        ResponsesServiceClient::new(self.core.clone()).max_decoding_message_size(MAX_FILE_MESSAGE)
    }

    pub(crate) fn webhooks(&self) -> WebhooksServiceClient<Transport> {
        WebhooksServiceClient::new(self.core.clone())
    }

    pub(crate) fn hosted(&self) -> HostedFormsServiceClient<Transport> {
        HostedFormsServiceClient::new(self.core.clone()).max_encoding_message_size(MAX_FILE_MESSAGE)
    }

    pub(crate) fn audit(&self) -> forms::pb::audit_service_client::AuditServiceClient<Transport> {
        forms::pb::audit_service_client::AuditServiceClient::new(self.core.clone())
    }

    pub(crate) fn members(
        &self,
    ) -> forms::pb::members_service_client::MembersServiceClient<Transport> {
        forms::pb::members_service_client::MembersServiceClient::new(self.core.clone())
    }

    pub(crate) fn usage(&self) -> UsageServiceClient<Transport> {
        UsageServiceClient::new(self.core.clone())
    }

    pub(crate) fn sessions(&self) -> SessionsServiceClient<Transport> {
        SessionsServiceClient::new(self.core.clone())
    }

    pub(crate) fn owner(&self) -> OwnerServiceClient<Transport> {
        OwnerServiceClient::new(self.core.clone())
    }

    pub(crate) fn gateway(&self) -> GatewayServiceClient<Transport> {
        GatewayServiceClient::new(self.core.clone())
    }

    pub(crate) fn health(&self) -> tonic_health::pb::health_client::HealthClient<Transport> {
        tonic_health::pb::health_client::HealthClient::new(self.core.clone())
    }
}

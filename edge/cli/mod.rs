//! The operator's command line. Every command is a call to the core's admin gRPC
//! services, over an in-process transport (see `app::Operator`), so the rules of keys,
//! accounts and webhooks (expiry, update masks, defaults) exist once, in the core.

pub(crate) mod accounts;
pub(crate) mod archive;
pub(crate) mod audit;
pub(crate) mod keys;
pub(crate) mod notifications;
pub(crate) mod webhooks;

use crate::app::{Error, Operator};
use crate::config::DbArgs;
use crate::http::state::Transport;
use forms::pb::admin_service_client::AdminServiceClient;
use forms::pb::audit_admin_service_client::AuditAdminServiceClient;
use forms::pb::notification_admin_service_client::NotificationAdminServiceClient;
use forms::pb::sessions_service_client::SessionsServiceClient;
use forms::pb::webhook_admin_service_client::WebhookAdminServiceClient;
use tonic::metadata::MetadataValue;

/// The admin services, as one command sees them.
pub(crate) struct Admin {
    transport: Transport,
    token: String,
}

impl Admin {
    pub(crate) fn accounts(&self) -> AdminServiceClient<Transport> {
        AdminServiceClient::new(self.transport.clone())
    }

    /// The transport, for the services that need no method of their own here.
    pub(crate) fn transport(&self) -> Transport {
        self.transport.clone()
    }

    pub(crate) fn audit(&self) -> AuditAdminServiceClient<Transport> {
        AuditAdminServiceClient::new(self.transport.clone())
    }

    pub(crate) fn sessions(&self) -> SessionsServiceClient<Transport> {
        SessionsServiceClient::new(self.transport.clone())
    }

    pub(crate) fn notifications(&self) -> NotificationAdminServiceClient<Transport> {
        NotificationAdminServiceClient::new(self.transport.clone())
    }

    pub(crate) fn webhooks(&self) -> WebhookAdminServiceClient<Transport> {
        WebhookAdminServiceClient::new(self.transport.clone())
    }

    /// `message` as a request carrying the operator token.
    pub(crate) fn request<T>(&self, message: T) -> Result<tonic::Request<T>, Error> {
        let mut request = tonic::Request::new(message);
        request
            .metadata_mut()
            .insert("x-admin-token", MetadataValue::try_from(&self.token)?);
        Ok(request)
    }
}

/// Runs one command against the database of `db`, then closes it (stopping an embedded
/// cluster started for the command).
pub(crate) async fn run<F, Fut>(db: &DbArgs, allow_private: bool, command: F) -> Result<(), Error>
where
    F: FnOnce(Admin) -> Fut,
    Fut: Future<Output = Result<(), Error>>,
{
    let operator = Operator::open(db, allow_private).await?;
    let admin = Admin {
        transport: operator.transport.clone(),
        token: operator.admin_token.clone(),
    };
    let result = command(admin).await;
    operator.close().await;
    result
}

/// A refusal of the core, as the operator reads it: its message (never a secret).
pub(crate) fn refused(status: tonic::Status) -> Error {
    status.message().to_owned().into()
}

/// `SCOPE_READ` → `read`: a proto enum value's name as operators write it.
pub(crate) fn lower_name(name: &str, prefix: &str) -> String {
    name.trim_start_matches(prefix).to_lowercase()
}

/// `read` → `SCOPE_READ`, for `from_str_name`.
pub(crate) fn proto_name(value: &str, prefix: &str) -> String {
    format!("{prefix}{}", value.trim().to_uppercase())
}

//! Request plumbing every gRPC adapter shares: reading an id from a request, answering
//! an admin call (which has no gate, so no request id of its own), and the operator
//! token check of the admin services.

use crate::config::CoreConfig;
use crate::error::CoreError;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// Parses a resource id from a request; anything that is not a UUID is simply not found.
pub(crate) fn parse_id(id: &str, what: &'static str) -> Result<Uuid, CoreError> {
    Uuid::parse_str(id).map_err(|_| CoreError::NotFound(what))
}

/// The reply of an admin call: its value, or its error under a fresh request id.
pub(crate) fn reply<T>(result: Result<T, CoreError>) -> Result<Response<T>, Status> {
    result
        .map(Response::new)
        .map_err(|e| e.into_status(&Uuid::new_v4().to_string()))
}

/// The operator token check shared by the admin services.
#[derive(Clone)]
pub(crate) struct AdminAuth {
    pub(crate) config: Arc<CoreConfig>,
}

impl AdminAuth {
    /// The operator as the audit trail names them, with the client's address and user
    /// agent (the in-process `formsd ...` commands: an unspecified address).
    pub(crate) fn actor<T>(&self, req: &Request<T>) -> crate::audit::Actor {
        let secret = self.config.edge_secret.as_deref();
        crate::audit::Actor::operator(
            crate::gate::client_ip(req, secret),
            &crate::gate::user_agent(req, secret),
        )
    }

    /// Checks the operator token in constant time (over digests, so lengths leak nothing).
    pub(crate) fn check<T>(&self, req: &Request<T>) -> Result<(), Status> {
        let presented = req
            .metadata()
            .get("x-admin-token")
            .and_then(|v| v.to_str().ok());
        let allowed = match (&self.config.admin_token, presented) {
            (Some(expected), Some(presented)) => crate::crypto::same(
                &Sha256::digest(expected.as_bytes()),
                &Sha256::digest(presented.as_bytes()),
            ),
            _ => false,
        };
        if allowed {
            Ok(())
        } else {
            Err(CoreError::AdminDenied.into_status("admin"))
        }
    }
}

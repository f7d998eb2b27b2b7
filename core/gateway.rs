//! GatewayService: lets the edge account for requests it refused on its own.

use crate::error::CoreError;
use crate::gate::Gate;
use crate::pb::{self, gateway_service_server::GatewayService};
use tonic::{Request, Response, Status};

/// Reasons the edge may ask the core to answer with.
const EDGE_REASONS: &[&str] = &[
    "VALIDATION_ERROR",
    "UNSUPPORTED_MEDIA_TYPE",
    "NOT_FOUND",
    "METHOD_NOT_ALLOWED",
    "PAYLOAD_TOO_LARGE",
];

/// The GatewayService of the core.
#[derive(Clone)]
pub struct Gateway {
    pub(crate) gate: Gate,
}

#[tonic::async_trait]
impl GatewayService for Gateway {
    async fn reject_request(
        &self,
        req: Request<pb::RejectRequestRequest>,
    ) -> Result<Response<pb::RejectRequestResponse>, Status> {
        self.gate
            .call(req, None, |_ctx, m| async move {
                let reason = if EDGE_REASONS.contains(&m.reason.as_str()) {
                    m.reason
                } else {
                    "VALIDATION_ERROR".to_owned()
                };
                Err::<pb::RejectRequestResponse, _>(CoreError::Rejected {
                    reason,
                    message: m.message,
                })
            })
            .await
    }
}

//! GatewayService: lets the edge account for requests it refused on its own.

use crate::error::CoreError;
use crate::gate::Gate;
use crate::pb::{self, ErrorReason, gateway_service_server::GatewayService};
use tonic::{Request, Response, Status};

/// The reason to answer a RejectRequest with: the edge may only claim refusals of its
/// own (never an authentication or domain error); anything else is a validation error.
fn edge_reason(m: &pb::RejectRequestRequest) -> ErrorReason {
    let asked = match m.error_reason() {
        // An edge of an older release sends the code as a string only.
        #[allow(deprecated)]
        ErrorReason::Unspecified => {
            ErrorReason::from_code(&m.reason).unwrap_or(ErrorReason::ValidationError)
        }
        reason => reason,
    };
    match asked {
        ErrorReason::ValidationError
        | ErrorReason::UnsupportedMediaType
        | ErrorReason::NotFound
        | ErrorReason::MethodNotAllowed
        | ErrorReason::PayloadTooLarge
        | ErrorReason::RequestTimeout => asked,
        _ => ErrorReason::ValidationError,
    }
}

/// The GatewayService of the core.
#[derive(Clone)]
pub(crate) struct Gateway {
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
                Err::<pb::RejectRequestResponse, _>(CoreError::Rejected {
                    reason: edge_reason(&m),
                    message: m.message,
                })
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(error_reason: ErrorReason, legacy: &str) -> ErrorReason {
        #[allow(deprecated)]
        let m = pb::RejectRequestRequest {
            reason: legacy.to_owned(),
            message: String::new(),
            error_reason: error_reason.into(),
        };
        edge_reason(&m)
    }

    #[test]
    fn the_edge_may_only_claim_its_own_refusals() {
        use ErrorReason as R;
        assert_eq!(asked(R::PayloadTooLarge, ""), R::PayloadTooLarge);
        assert_eq!(asked(R::NotFound, "METHOD_NOT_ALLOWED"), R::NotFound);
        assert_eq!(asked(R::KeyInvalid, ""), R::ValidationError);
        assert_eq!(asked(R::Internal, ""), R::ValidationError);
        // An older edge: the string field only.
        assert_eq!(
            asked(R::Unspecified, "METHOD_NOT_ALLOWED"),
            R::MethodNotAllowed
        );
        assert_eq!(asked(R::Unspecified, "KEY_INVALID"), R::ValidationError);
        assert_eq!(asked(R::Unspecified, "NONSENSE"), R::ValidationError);
        assert_eq!(asked(R::Unspecified, ""), R::ValidationError);
    }
}

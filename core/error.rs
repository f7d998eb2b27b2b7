//! The core's one error type, and its single mapping onto `tonic::Status`.
//!
//! Every error carries a `google.rpc.ErrorInfo` whose `reason` is the SPEC error code;
//! clients (the REST edge included) map by reason, never by gRPC code alone.

use std::time::Duration;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// Domain of the `ErrorInfo` details.
pub const ERROR_DOMAIN: &str = "forms.v1";

/// An error of the core, as its callers should see it.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("no API key provided")]
    Unauthenticated,
    #[error("the API key is invalid, revoked or expired")]
    KeyInvalid,
    #[error("this operation requires the {0} scope")]
    InsufficientScope(&'static str),
    #[error("API access requires the Pro plan or higher")]
    PlanRequired,
    #[error("the form owner has reached the response limit")]
    ResponseLimitReached,
    #[error("rate limit exceeded, retry in {retry_after} seconds")]
    RateLimited { retry_after: u64 },
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Validation(String),
    #[error("the form is not published")]
    FormNotPublished,
    #[error("the form is closed")]
    FormClosed,
    #[error("operator token missing or wrong")]
    AdminDenied,
    /// A refusal decided by the edge before a message could be built (see GatewayService).
    #[error("{message}")]
    Rejected { reason: String, message: String },
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("internal error: {0}")]
    Internal(String),
}

impl CoreError {
    /// Shorthand for a validation error.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::Validation(message.into())
    }

    /// The SPEC error code.
    pub fn reason(&self) -> &str {
        match self {
            Self::Unauthenticated => "UNAUTHENTICATED",
            Self::KeyInvalid => "KEY_INVALID",
            Self::InsufficientScope(_) => "INSUFFICIENT_SCOPE",
            Self::PlanRequired => "PLAN_REQUIRED",
            Self::ResponseLimitReached => "RESPONSE_LIMIT_REACHED",
            Self::RateLimited { .. } => "RATE_LIMITED",
            Self::NotFound(_) => "NOT_FOUND",
            Self::Validation(_) => "VALIDATION_ERROR",
            Self::FormNotPublished => "FORM_NOT_PUBLISHED",
            Self::FormClosed => "FORM_CLOSED",
            Self::AdminDenied => "ADMIN_DENIED",
            Self::Rejected { reason, .. } => reason,
            Self::Database(_) | Self::Internal(_) => "INTERNAL",
        }
    }

    fn code(&self) -> Code {
        match self {
            Self::Unauthenticated | Self::KeyInvalid => Code::Unauthenticated,
            Self::InsufficientScope(_) | Self::PlanRequired | Self::AdminDenied => {
                Code::PermissionDenied
            }
            Self::ResponseLimitReached | Self::RateLimited { .. } => Code::ResourceExhausted,
            Self::NotFound(_) => Code::NotFound,
            Self::Validation(_) => Code::InvalidArgument,
            Self::FormNotPublished | Self::FormClosed => Code::FailedPrecondition,
            Self::Rejected { reason, .. } => match reason.as_str() {
                "NOT_FOUND" => Code::NotFound,
                "METHOD_NOT_ALLOWED" => Code::Unimplemented,
                "PAYLOAD_TOO_LARGE" => Code::ResourceExhausted,
                _ => Code::InvalidArgument,
            },
            Self::Database(_) | Self::Internal(_) => Code::Internal,
        }
    }

    /// Whether this is a failure of the service rather than of the request.
    pub fn is_internal(&self) -> bool {
        matches!(self, Self::Database(_) | Self::Internal(_))
    }

    /// The `Status` to answer with. Internal failures are logged here, with the request
    /// id, and answered with a message that names only the request id.
    pub fn into_status(self, request_id: &str) -> Status {
        let message = if self.is_internal() {
            tracing::error!(request_id, error = %self, "internal failure");
            format!("internal error; quote request id {request_id} when reporting it")
        } else {
            self.to_string()
        };
        let mut details = ErrorDetails::with_error_info(
            self.reason(),
            ERROR_DOMAIN,
            std::collections::HashMap::<String, String>::new(),
        );
        if let Self::RateLimited { retry_after } = self {
            details.set_retry_info(Some(Duration::from_secs(retry_after)));
        }
        Status::with_error_details(self.code(), message, details)
    }
}

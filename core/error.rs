//! The core's one error type, and its single mapping onto `tonic::Status`.
//!
//! Every error carries a `google.rpc.ErrorInfo` whose `reason` is the SPEC error code
//! (a `pb::ErrorReason`, sent by name without its prefix); clients (the REST edge
//! included) map by reason, never by gRPC code alone.

use crate::pb::ErrorReason;
use std::time::Duration;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// Domain of the `ErrorInfo` details.
pub(crate) const ERROR_DOMAIN: &str = "forms.v1";

/// Retry-After of a refusal while the database cannot be reached: the readiness probe
/// looks again well within it.
pub(crate) const UNAVAILABLE_RETRY_SECS: u64 = 1;

/// One answer that breaks its field's rule.
#[derive(Debug, Clone, thiserror::Error)]
#[error("answers.{field} {}{problem}", if label.is_empty() { String::new() } else { format!("({label}) ") })]
pub struct FieldError {
    /// The answer's key (a field id).
    pub field: String,
    /// The field's label; empty when the key names no field.
    pub label: String,
    /// What is wrong, e.g. "is required" (with its stable reason, for translations).
    pub problem: crate::Problem,
}

impl FieldError {
    /// The message for a person filling the form: "Email must be an email address".
    pub fn for_people(&self) -> String {
        if self.label.is_empty() {
            format!("This answer {}", self.problem)
        } else {
            format!("{} {}", self.label, self.problem)
        }
    }
}

/// Whether a database error means the database cannot be reached right now (a pool
/// that found no connection in time, a connection lost, the server shutting down or
/// starting), as opposed to a failed statement: the former is worth a retry (503).
fn database_unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
        sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed => true,
        // A connection that broke mid-conversation (seen while PostgreSQL drops
        // connections: "unexpected response from SSLRequest").
        sqlx::Error::Protocol(_) => true,
        // SQLSTATE class 08 (connection exception), 57P0x (shutting down, cannot
        // connect now), and 25006 (read-only transaction: the server was a primary
        // when the connection opened and is a standby now, during a failover).
        sqlx::Error::Database(e) => e.code().is_some_and(|code| {
            code.starts_with("08") || code.starts_with("57P0") || code == READ_ONLY_TRANSACTION
        }),
        _ => false,
    }
}

/// SQLSTATE `read_only_sql_transaction`.
const READ_ONLY_TRANSACTION: &str = "25006";

/// SQLSTATEs of text PostgreSQL cannot store: a NUL character in text (22021,
/// `character_not_in_repertoire`) or as `\u0000` in jsonb (22P05,
/// `untranslatable_character`). JSON, protobuf and query strings can all carry one.
const UNSTORABLE_TEXT: &[&str] = &["22021", "22P05"];

impl From<sqlx::Error> for CoreError {
    /// A statement refused for text the database cannot hold is the caller's input
    /// (422), not a failure of the service; every other database error stays one.
    fn from(error: sqlx::Error) -> Self {
        let unstorable = matches!(&error, sqlx::Error::Database(e)
            if e.code().is_some_and(|code| UNSTORABLE_TEXT.contains(&code.as_ref())));
        if unstorable {
            return Self::UnstorableText;
        }
        Self::Database(error)
    }
}

/// The message of [`CoreError::ReadStopped`].
fn read_stopped(limit: Option<Duration>) -> String {
    match limit {
        Some(limit) => format!(
            "this read took longer than the time limit of {} a request's statement may run, and was stopped: narrow it (fewer conditions, a longer search text, a shorter window of time) or try again later",
            written(limit)
        ),
        None => "this read was cancelled on the database server; try again later".to_owned(),
    }
}

/// `limit` as an operator writes it ("30s", "1500ms").
fn written(limit: Duration) -> String {
    let millis = limit.as_millis();
    if millis.is_multiple_of(1000) {
        format!("{}s", millis / 1000)
    } else {
        format!("{millis}ms")
    }
}

/// Why a hosted page's proof of work was refused (core/hosted/pow.rs). Its code goes
/// in the ErrorInfo metadata under `proof_of_work`, for the page to say what happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ProofOfWorkRefusal {
    #[error("this form requires a solved proof-of-work challenge")]
    Missing,
    #[error("the proof-of-work solution is not one of a challenge issued for this form")]
    Invalid,
    #[error("the proof-of-work challenge has expired; solve the new one")]
    Expired,
    #[error("this proof-of-work solution was used already; solve the new one")]
    Spent,
}

impl ProofOfWorkRefusal {
    /// The value of the `proof_of_work` ErrorInfo metadata entry.
    pub fn code(self) -> &'static str {
        match self {
            Self::Missing => "missing",
            Self::Invalid => "invalid",
            Self::Expired => "expired",
            Self::Spent => "spent",
        }
    }
}

/// An error of the core, as its callers should see it.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("no API key provided")]
    Unauthenticated,
    #[error("the API key is invalid, revoked or expired")]
    KeyInvalid,
    #[error("this operation requires the {0} scope")]
    InsufficientScope(&'static str),
    /// A member whose role is below the method's (`gate::permissions`).
    #[error("this operation requires the {0} role")]
    InsufficientRole(&'static str),
    #[error("API access requires the Pro plan or higher")]
    PlanRequired,
    #[error("the form owner has reached the response limit")]
    ResponseLimitReached,
    #[error("rate limit exceeded, retry in {retry_after} seconds")]
    RateLimited { retry_after: u64 },
    /// A page saved for later over a cap on unfinished responses (`hosted::bounds`): a
    /// rate limit to a client, but no wait of a minute frees room (unfinished responses
    /// expire in days), so the page says what the visitor can do; the ErrorInfo
    /// metadata `limit` is `partials`.
    #[error(
        "this form holds as many unfinished responses as it may; submit the answers, or save them later"
    )]
    PartialsFull { retry_after: u64 },
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Validation(String),
    /// Text the database refused to store (a NUL character): the caller's input, found
    /// by a statement (which aborted its transaction).
    #[error("text cannot contain the NUL character (U+0000)")]
    UnstorableText,
    /// Answers that break their fields' rules.
    #[error("{}", .0.iter().map(FieldError::to_string).collect::<Vec<_>>().join("; "))]
    FieldErrors(Vec<FieldError>),
    /// A hosted page's submission to a form that turns `proof_of_work` on, without a
    /// good solution (a validation error: the page is shown again with a new challenge).
    #[error("{0}")]
    ProofOfWork(ProofOfWorkRefusal),
    #[error("the form page has expired or was not served by us; reload it and submit again")]
    CsrfFailed,
    /// An endpoint submission (the owner's own HTML form on another site) from a page
    /// whose origin the form does not list in `allowed_origins`, or from no page.
    #[error(
        "this form does not accept submissions from this page's origin: its owner lists the sites it accepts in the form's allowed_origins setting"
    )]
    OriginNotAllowed,
    #[error("the form is not published")]
    FormNotPublished,
    #[error("the form is closed")]
    FormClosed,
    #[error("operator token missing or wrong")]
    AdminDenied,
    /// A refusal decided by the edge before a message could be built (see GatewayService).
    #[error("{message}")]
    Rejected {
        reason: ErrorReason,
        message: String,
    },
    /// The reader of a streamed reply (an export) took nothing for this many seconds:
    /// the stream stopped, and gave its database connection back.
    #[error("the reader took no data for {0} seconds: the transfer was stopped")]
    ReaderStalled(u64),
    /// A read whose cost the caller chose (a filter, a search, a summary) ran past the
    /// statement time limit (`None`: it was cancelled otherwise) and was stopped.
    #[error("{}", read_stopped(*.0))]
    ReadStopped(Option<Duration>),
    /// The database is known not to answer (the readiness probe found so): refused
    /// without waiting for a connection.
    #[error("the service is temporarily unavailable; retry shortly")]
    Unavailable,
    #[error("database error: {0}")]
    Database(sqlx::Error),
    #[error("internal error: {0}")]
    Internal(String),
}

impl CoreError {
    /// Shorthand for a validation error.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::Validation(message.into())
    }

    /// The SPEC error code.
    pub fn reason(&self) -> ErrorReason {
        match self {
            Self::Unauthenticated => ErrorReason::Unauthenticated,
            Self::KeyInvalid => ErrorReason::KeyInvalid,
            Self::InsufficientScope(_) | Self::InsufficientRole(_) => {
                ErrorReason::InsufficientScope
            }
            Self::PlanRequired => ErrorReason::PlanRequired,
            Self::ResponseLimitReached => ErrorReason::ResponseLimitReached,
            Self::RateLimited { .. } | Self::PartialsFull { .. } => ErrorReason::RateLimited,
            Self::NotFound(_) => ErrorReason::NotFound,
            Self::Validation(_)
            | Self::FieldErrors(_)
            | Self::UnstorableText
            | Self::ProofOfWork(_) => ErrorReason::ValidationError,
            Self::CsrfFailed => ErrorReason::CsrfFailed,
            Self::OriginNotAllowed => ErrorReason::OriginNotAllowed,
            Self::FormNotPublished => ErrorReason::FormNotPublished,
            Self::FormClosed => ErrorReason::FormClosed,
            Self::AdminDenied => ErrorReason::AdminDenied,
            Self::Rejected { reason, .. } => *reason,
            Self::ReaderStalled(_) => ErrorReason::RequestTimeout,
            Self::ReadStopped(_) | Self::Unavailable => ErrorReason::ServiceUnavailable,
            Self::Database(e) if database_unavailable(e) => ErrorReason::ServiceUnavailable,
            Self::Database(_) | Self::Internal(_) => ErrorReason::Internal,
        }
    }

    fn code(&self) -> Code {
        match self {
            Self::Unauthenticated | Self::KeyInvalid => Code::Unauthenticated,
            Self::InsufficientScope(_)
            | Self::InsufficientRole(_)
            | Self::PlanRequired
            | Self::AdminDenied => Code::PermissionDenied,
            Self::ResponseLimitReached | Self::RateLimited { .. } | Self::PartialsFull { .. } => {
                Code::ResourceExhausted
            }
            Self::NotFound(_) => Code::NotFound,
            Self::Validation(_)
            | Self::FieldErrors(_)
            | Self::UnstorableText
            | Self::ProofOfWork(_) => Code::InvalidArgument,
            Self::CsrfFailed | Self::OriginNotAllowed => Code::PermissionDenied,
            Self::FormNotPublished | Self::FormClosed => Code::FailedPrecondition,
            Self::Rejected { reason, .. } => match reason {
                ErrorReason::NotFound => Code::NotFound,
                ErrorReason::MethodNotAllowed => Code::Unimplemented,
                ErrorReason::PayloadTooLarge => Code::ResourceExhausted,
                ErrorReason::RequestTimeout => Code::DeadlineExceeded,
                // A refusal shared by the requests of a batch that met an outage.
                ErrorReason::ServiceUnavailable => Code::Unavailable,
                ErrorReason::Internal => Code::Internal,
                _ => Code::InvalidArgument,
            },
            Self::ReaderStalled(_) => Code::DeadlineExceeded,
            Self::ReadStopped(_) | Self::Unavailable => Code::Unavailable,
            Self::Database(e) if database_unavailable(e) => Code::Unavailable,
            Self::Database(_) | Self::Internal(_) => Code::Internal,
        }
    }

    /// Seconds to wait before trying again, when waiting helps: a rate limit's, or a
    /// moment while the database cannot be reached (SPEC: Retry-After).
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Self::RateLimited { retry_after } | Self::PartialsFull { retry_after } => {
                Some(*retry_after)
            }
            // The same read would take as long again: no invitation to repeat it at once.
            Self::ReadStopped(_) => None,
            _ if self.reason() == ErrorReason::ServiceUnavailable => Some(UNAVAILABLE_RETRY_SECS),
            _ => None,
        }
    }

    /// Whether the database connection of this request was lost or could not be made
    /// (an I/O error, a broken conversation, the server shutting down or refusing):
    /// the server may be gone, not merely busy.
    pub(crate) fn is_connection_lost(&self) -> bool {
        match self {
            Self::Database(sqlx::Error::Io(_) | sqlx::Error::Protocol(_)) => true,
            Self::Database(sqlx::Error::Database(e)) => e
                .code()
                .is_some_and(|code| code.starts_with("08") || code.starts_with("57P0")),
            _ => false,
        }
    }

    /// Whether this is a failure of the service rather than of the request (a
    /// database that cannot be reached is not: it is answered as unavailable).
    pub fn is_internal(&self) -> bool {
        match self {
            Self::Database(e) => !database_unavailable(e),
            Self::Internal(_) => true,
            _ => false,
        }
    }

    /// The `Status` to answer with. Internal failures are logged here, with the request
    /// id, and answered with a message that names only the request id.
    pub fn into_status(self, request_id: &str) -> Status {
        let message = if self.is_internal() {
            tracing::error!(error = %self, "internal failure");
            format!("internal error; quote request id {request_id} when reporting it")
        } else if let Self::Database(error) = &self {
            tracing::warn!(%error, "database unavailable");
            format!(
                "the service is temporarily unavailable; retry shortly (request id {request_id})"
            )
        } else {
            self.to_string()
        };
        let mut metadata = std::collections::HashMap::<String, String>::new();
        if let Self::FieldErrors(errors) = &self {
            for error in errors {
                metadata.insert(format!("field.{}", error.field), error.for_people());
                // A page says it in its visitor's language from these.
                metadata.insert(
                    format!("reason.{}", error.field),
                    error.problem.reason.into(),
                );
                metadata.insert(
                    format!("args.{}", error.field),
                    error.problem.encoded_args(),
                );
            }
        }
        if let Self::ProofOfWork(refusal) = &self {
            metadata.insert("proof_of_work".to_owned(), refusal.code().to_owned());
        }
        if let Self::PartialsFull { .. } = &self {
            metadata.insert("limit".to_owned(), "partials".to_owned());
        }
        let mut details =
            ErrorDetails::with_error_info(self.reason().code(), ERROR_DOMAIN, metadata);
        if let Some(secs) = self.retry_after() {
            details.set_retry_info(Some(Duration::from_secs(secs)));
        }
        Status::with_error_details(self.code(), message, details)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_refusal_keeps_the_code_of_its_reason() {
        let shared = |reason| CoreError::Rejected {
            reason,
            message: "storing this response failed with others sent at the same time".into(),
        };
        let unavailable = shared(ErrorReason::ServiceUnavailable);
        assert_eq!(unavailable.retry_after(), Some(UNAVAILABLE_RETRY_SECS));
        assert_eq!(unavailable.into_status("r").code(), Code::Unavailable);
        assert_eq!(
            shared(ErrorReason::Internal).into_status("r").code(),
            Code::Internal
        );
    }
}

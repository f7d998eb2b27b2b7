//! Tracing of gRPC calls: each call runs in a `grpc` span named after its method and
//! carrying its request id, so every log line of a call, from any module, can be found
//! by the id (`--log-format json` prints the span's fields with each line). The id is
//! the caller's `x-request-id` when it is a sane one; otherwise the gate assigns one and
//! records it in the span.

use http::HeaderMap;
use tracing::Span;

/// Metadata carrying the request id, both ways.
pub const REQUEST_ID: &str = "x-request-id";

/// A request id as sent by a caller, if it is short and made of safe characters (it is
/// logged and echoed, so nothing else is taken).
pub fn sane_request_id(id: &str) -> Option<&str> {
    let sane = !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    sane.then_some(id)
}

/// The span of one gRPC call, from its HTTP/2 request head.
pub fn grpc_span(headers: &HeaderMap, path: &str) -> Span {
    let span = tracing::info_span!("grpc", method = path, request_id = tracing::field::Empty);
    if let Some(id) = headers
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .and_then(sane_request_id)
    {
        span.record("request_id", id);
    }
    span
}

/// Records the request id the gate settled on in the current call's span.
pub fn record_request_id(id: &str) {
    Span::current().record("request_id", id);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sane_ids_are_taken() {
        assert_eq!(sane_request_id("4f1c-a_b.9"), Some("4f1c-a_b.9"));
        assert_eq!(sane_request_id(""), None);
        assert_eq!(sane_request_id("a b"), None);
        assert_eq!(sane_request_id("x\ny"), None);
        assert_eq!(sane_request_id(&"a".repeat(101)), None);
    }
}

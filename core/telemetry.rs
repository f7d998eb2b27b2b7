//! Tracing of gRPC calls: each call runs in a `grpc` span named after its method and
//! carrying its request id, so every log line of a call, from any module, can be found
//! by the id (`--log-format json` prints the span's fields with each line). The id is
//! the caller's `x-request-id` when it is a sane one; otherwise the gate assigns one and
//! records it in the span. And the gauges read from the database when metrics are
//! scraped.

use http::HeaderMap;
use std::time::Instant;
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

/// A new request id: a random (version 4) UUID from the thread's generator, which
/// costs no system call (`Uuid::new_v4` asks the kernel each time).
pub fn new_request_id() -> String {
    uuid::Builder::from_random_bytes(rand::random())
        .into_uuid()
        .to_string()
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

/// Counts and times every gRPC call of the core's routes, by method and status code
/// (`formsd_grpc_calls_total`, `formsd_grpc_call_duration_seconds`); recorded only
/// when the process installed a metrics recorder (`--metrics-addr`).
pub async fn grpc_metrics(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let path = req.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(req).await;
    let code = grpc_code(response.headers());
    // A path that names no method is answered UNIMPLEMENTED: one label for all of them,
    // or each made-up path would be a series of its own.
    let method = if code == tonic::Code::Unimplemented {
        "unknown".to_owned()
    } else {
        path
    };
    let elapsed = started.elapsed().as_secs_f64();
    metrics::histogram!("formsd_grpc_call_duration_seconds", "method" => method.clone())
        .record(elapsed);
    metrics::counter!("formsd_grpc_calls_total", "method" => method, "code" => format!("{code:?}"))
        .increment(1);
    response
}

/// The status of a call from its reply's head. A call refused before its reply begins
/// answers "trailers-only", with `grpc-status` among the headers; a reply that begins is
/// counted OK: its status comes in the trailers, after the body. Unary calls always
/// fail trailers-only; a stream (`ExportResponses`) that fails after it began is counted
/// OK here, and its duration is the time to its first message.
fn grpc_code(headers: &HeaderMap) -> tonic::Code {
    headers
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok())
        .map_or(tonic::Code::Ok, tonic::Code::from)
}

/// Records the request id the gate settled on in the current call's span.
pub fn record_request_id(id: &str) {
    Span::current().record("request_id", id);
}

/// The gauges that read the database at scrape time: the pool's connections, and the
/// webhook delivery backlog (a failed read keeps the last values, and is logged).
pub async fn sample_database(pool: &sqlx::PgPool) {
    let idle = pool.num_idle() as f64;
    let all = f64::from(pool.size());
    metrics::gauge!("formsd_db_pool_connections", "state" => "idle").set(idle);
    metrics::gauge!("formsd_db_pool_connections", "state" => "used").set(all - idle);
    match crate::webhooks::store::backlog(pool).await {
        Ok((pending, oldest_age_secs)) => {
            metrics::gauge!("formsd_webhook_deliveries_pending").set(pending as f64);
            metrics::gauge!("formsd_webhook_oldest_pending_age_seconds").set(oldest_age_secs);
        }
        Err(error) => tracing::warn!(%error, "reading the webhook backlog for the metrics"),
    }
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

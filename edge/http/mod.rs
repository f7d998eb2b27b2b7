//! The HTTP plumbing the edges share: the server and its TLS, the client's address
//! behind proxies, cookies, origins, request bodies, the one error type and its SPEC
//! envelope, the conversation with the core (`call`), the edge's state, logs and
//! metrics.

pub(crate) mod asset;
pub(crate) mod body;
pub(crate) mod call;
pub(crate) mod cookies;
pub(crate) mod download;
pub(crate) mod error;
pub(crate) mod forwarded;
pub(crate) mod https;
pub(crate) mod logs;
pub(crate) mod metrics;
pub(crate) mod origin;
pub(crate) mod params;
pub(crate) mod remote;
pub(crate) mod server;
pub(crate) mod site;
pub(crate) mod state;
pub(crate) mod tls;

use ::forms::pb::convert;
use serde_json::Value;

/// A timestamp as ISO 8601 UTC with milliseconds, or null.
pub(crate) fn timestamp_json(ts: Option<&prost_types::Timestamp>) -> Value {
    ts.and_then(convert::iso8601)
        .map_or(Value::Null, Value::String)
}

/// A timestamp as ISO 8601 UTC with milliseconds.
pub(crate) fn timestamp(ts: Option<&prost_types::Timestamp>) -> Option<String> {
    ts.and_then(convert::iso8601)
}

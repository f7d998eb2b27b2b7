//! Metadata names that both halves of the service use on a call, beside the messages.

/// The secret by which a separate REST edge proves it is one (`--edge-secret`), so
/// that the core believes the visitor's address it forwards.
pub const EDGE_SECRET: &str = "x-edge-secret";

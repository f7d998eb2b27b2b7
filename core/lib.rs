//! The forms service core: every rule of the service (authentication, plans, scopes,
//! rate limits, usage, forms, responses, idempotency, webhooks) behind a tonic gRPC
//! API over PostgreSQL. The REST edge (`formsd`'s binary) reaches it only through the
//! generated client types in [`pb`].

// A call's future nests the gate's, the method's, the replica retry's and sqlx's: the
// release build's layout of the deepest (GetUsage) passes the default 128 levels.
#![recursion_limit = "256"]

// What the edge, the end-to-end tests and the benchmarks use is public; the rest is the
// crate's own, so that the compiler reports what nothing uses (`unreachable_pub`,
// dead code).
pub mod accounts;
pub mod config;
pub mod db;
pub mod notifications;
pub mod pb;
pub mod recall;
pub mod responses;
pub mod telemetry;
pub mod usage;
pub mod webhooks;

mod archive;
mod audit;
mod crypto;
mod dashboard;
mod error;
mod files;
mod forms;
mod gate;
mod gateway;
mod hosted;
mod housekeeping;
mod idempotency;
mod lru;
mod members;
mod outbox;
mod paging;
mod problem;
mod rights;
mod rpc;
mod secrets;
mod server;
mod slots;

pub use config::CoreConfig;
pub use dashboard::SessionPolicy;
pub use dashboard::oidc::OidcSettings;
pub use error::CoreError;
pub use gate::keys::APPLICATION_NAME as KEY_LISTENER_APPLICATION_NAME;
pub use gate::permissions;
pub use problem::Problem;
pub use server::Core;

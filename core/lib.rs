//! The forms service core: every rule of the service (authentication, plans, scopes,
//! rate limits, usage, forms, responses, idempotency, webhooks) behind a tonic gRPC
//! API over PostgreSQL. The REST edge (`formsd`'s binary) reaches it only through the
//! generated client types in [`pb`].

pub mod accounts;
pub mod config;
pub mod crypto;
pub mod db;
pub mod error;
pub mod files;
pub mod forms;
pub mod gate;
pub mod gateway;
pub mod hosted;
pub mod idempotency;
pub mod notifications;
pub mod outbox;
pub mod paging;
pub mod pb;
pub mod responses;
pub mod rpc;
pub mod secrets;
pub mod server;
pub mod telemetry;
pub mod usage;
pub mod webhooks;

pub use config::CoreConfig;
pub use error::CoreError;
pub use server::Core;

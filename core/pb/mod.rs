//! Code generated from `proto/forms/v1`, plus conversions between protobuf well-known
//! types and JSON / time values that both halves of the service need.

#![allow(clippy::all, missing_docs)]

tonic::include_proto!("forms.v1");

pub mod convert;
pub mod details;
pub mod identity;
pub mod metadata;
mod reason;

/// The event names a webhook subscription may list (SPEC Events): the core refuses any
/// other, the dashboard offers these.
pub const WEBHOOK_EVENTS: &[&str] = crate::webhooks::EVENTS;

/// Encoded descriptor set of `proto/`, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("forms_descriptor");

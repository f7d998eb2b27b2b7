//! Code generated from `proto/forms/v1`, plus conversions between protobuf well-known
//! types and JSON / time values that both halves of the service need.

#![allow(clippy::all, missing_docs)]

tonic::include_proto!("forms.v1");

pub mod convert;
pub mod details;
pub mod identity;
pub mod metadata;
mod reason;

/// The kinds of field, one list for every edge: a field's `type` is one of their
/// names (`FieldKind::as_str`); `FormField::kind` reads it.
pub use crate::forms::fields::FieldKind;

impl FormField {
    /// The field's kind; None for a name this build does not know (the core never
    /// sends one).
    pub fn kind(&self) -> Option<FieldKind> {
        self.r#type.parse().ok()
    }

    /// Whether the field is of `kind`.
    pub fn is(&self, kind: FieldKind) -> bool {
        self.r#type == kind.as_str()
    }
}

/// The languages a form may be in (BCP 47 primary tags, English first): the core
/// refuses any other in `translations` and `default_language`; the hosted page speaks
/// its own words in each, and the builder offers them.
pub const FORM_LANGUAGES: &[&str] = crate::forms::languages::KNOWN;

/// The event names a webhook subscription may list (SPEC Events): the core refuses any
/// other, the dashboard offers these.
pub const WEBHOOK_EVENTS: &[&str] = crate::webhooks::EVENTS;

/// Encoded descriptor set of `proto/`, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("forms_descriptor");

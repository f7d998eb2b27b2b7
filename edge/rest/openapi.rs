//! The OpenAPI 3.1 document of `/api/v1`, derived from the code: the routes' handlers
//! (`#[utoipa::path]`), the body and reply types they (de)serialize, and, added here
//! once for every operation, what the SPEC says of all of them: the security schemes,
//! the headers, and the error envelope with the codes each operation can answer, their
//! statuses taken from the edge's one status table (`error::status_of`).
//!
//! Served at `GET /api/v1/openapi.json`, printed by `formsd openapi`, committed as
//! `docs/openapi.json` (a test fails when they differ).

use crate::http::error::status_of;
use crate::rest::pagination::Page;
use crate::rest::{audit, erasures, export, form, responses, summary, theme, usage, webhooks};
use forms::pb::ErrorReason;
use std::collections::BTreeMap;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::link::LinkBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder};
use utoipa::openapi::security::{SecurityRequirement, SecurityScheme};
use utoipa::openapi::server::Server;
use utoipa::openapi::{ContentBuilder, OpenApi as Document, Ref, RefOr};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "formsd REST API",
        description = "Forms, the responses submitted to them, webhook subscriptions and \
            per-key usage. Send an API key in `x-api-key` or as `Authorization: Bearer`; a \
            browser may use the identity provider's session cookie instead. Every reply \
            carries `X-Request-Id` and, once a key is known, the `X-RateLimit-*` headers \
            of its fixed 60-second window.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    paths(
        form::list, form::create, form::get, form::update, form::delete,
        theme::put_logo, theme::delete_logo,
        responses::list, responses::create, responses::get, responses::delete,
        responses::file, export::export, summary::get,
        webhooks::list, webhooks::create, webhooks::delete,
        usage::get,
        erasures::create,
        audit::list, audit::export,
    ),
    components(schemas(Page, crate::rest::filter::AnswerConditions)),
    tags(
        (name = "forms", description = "Forms and their field definitions"),
        (name = "responses", description = "Submissions to a form"),
        (name = "webhooks", description = "Signed callbacks on a form's events"),
        (name = "usage", description = "The calling key's own usage"),
        (name = "audit", description = "The account's audit trail: who changed what, when, from where"),
    ),
    modifiers(&Contract),
)]
struct ApiDoc;

/// The document, complete.
pub(crate) fn document() -> Document {
    ApiDoc::openapi()
}

/// Adds to every operation what the SPEC says of all of them.
struct Contract;

/// The error reasons an operation can answer with, besides those of every call
/// (`EVERY_CALL`) and of every call that needs a scope (`SCOPED`).
fn errors_of(operation_id: &str) -> &'static [ErrorReason] {
    use ErrorReason::*;
    match operation_id {
        "listForms" | "getUsage" | "listAuditEntries" | "exportAuditEntries" => &[ValidationError],
        "getForm" | "deleteForm" | "getResponse" | "deleteResponse" | "getResponseFile"
        | "listWebhooks" | "deleteWebhook" => &[NotFound],
        "setFormLogo" => &[NotFound, PayloadTooLarge, RequestTimeout, ValidationError],
        "deleteFormLogo" => &[NotFound],
        "listResponses" | "exportResponses" | "getFormSummary" => &[NotFound, ValidationError],
        "createForm" | "createErasure" => BODY,
        "updateForm" | "createWebhook" => &[
            NotFound,
            UnsupportedMediaType,
            PayloadTooLarge,
            RequestTimeout,
            ValidationError,
        ],
        "createResponse" => &[
            NotFound,
            ResponseLimitReached,
            UnsupportedMediaType,
            PayloadTooLarge,
            RequestTimeout,
            ValidationError,
            FormNotPublished,
            FormClosed,
        ],
        _ => &[],
    }
}

/// Refusals of a JSON body before any rule of the operation.
const BODY: &[ErrorReason] = &[
    ErrorReason::UnsupportedMediaType,
    ErrorReason::PayloadTooLarge,
    ErrorReason::RequestTimeout,
    ErrorReason::ValidationError,
];

/// Errors any call can get: no or bad credentials, a plan without API access, the
/// rate limit, and failures of the service itself.
const EVERY_CALL: &[ErrorReason] = &[
    ErrorReason::Unauthenticated,
    ErrorReason::KeyInvalid,
    ErrorReason::PlanRequired,
    ErrorReason::RateLimited,
    ErrorReason::Internal,
    ErrorReason::ServiceUnavailable,
];

/// Whether the operation needs a scope (all but reading one's own usage).
fn scoped(operation_id: &str) -> bool {
    operation_id != "getUsage"
}

/// Follow-up operations reachable from a create's reply: documentation for clients,
/// and the stateful phase of schemathesis follows them.
fn links_of(
    operation_id: &str,
) -> &'static [(&'static str, &'static [(&'static str, &'static str)])] {
    const FORM: &str = "$response.body#/data/form/id";
    match operation_id {
        "createForm" => &[
            ("getForm", &[("id", FORM)]),
            ("updateForm", &[("id", FORM)]),
            ("deleteForm", &[("id", FORM)]),
            ("listResponses", &[("form_id", FORM)]),
            ("createResponse", &[("form_id", FORM)]),
            ("getFormSummary", &[("form_id", FORM)]),
            ("listWebhooks", &[("form_id", FORM)]),
            ("createWebhook", &[("form_id", FORM)]),
        ],
        // An update may publish the form: responses can be created on it then.
        "updateForm" => &[
            ("getForm", &[("id", FORM)]),
            ("createResponse", &[("form_id", FORM)]),
            ("listResponses", &[("form_id", FORM)]),
        ],
        "createResponse" => &[
            (
                "getResponse",
                &[
                    ("form_id", "$response.body#/data/response/form_id"),
                    ("id", "$response.body#/data/response/id"),
                ],
            ),
            (
                "deleteResponse",
                &[
                    ("form_id", "$response.body#/data/response/form_id"),
                    ("id", "$response.body#/data/response/id"),
                ],
            ),
        ],
        "createWebhook" => &[(
            "deleteWebhook",
            &[
                ("form_id", "$response.body#/data/webhook/form_id"),
                ("id", "$response.body#/data/webhook/id"),
            ],
        )],
        _ => &[],
    }
}

impl Modify for Contract {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "apiKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "x-api-key",
                "An API key (`formsd keys create`).",
            ))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The same API key as `Authorization: Bearer <key>`."))
                    .build(),
            ),
        );
        components
            .schemas
            .insert("Error".to_owned(), RefOr::T(error_schema()));
        for (name, schema, description) in headers() {
            components
                .headers
                .insert(name.to_owned(), header(schema, description));
        }
        for item in doc.paths.paths.values_mut() {
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
            ];
            for operation in operations.into_iter().flatten() {
                complete(operation, &mut components.responses);
            }
        }
        doc.servers = Some(vec![Server::new("/api/v1")]);
    }
}

/// Security, success headers, links and the error responses of one operation (shared
/// between operations as components named after their codes).
fn complete(operation: &mut Operation, shared: &mut BTreeMap<String, RefOr<Response>>) {
    let id = operation.operation_id.clone().unwrap_or_default();
    // Either scheme alone authenticates.
    operation.security = Some(vec![
        SecurityRequirement::new("apiKey", Vec::<String>::new()),
        SecurityRequirement::new("bearer", Vec::<String>::new()),
    ]);
    let creates = matches!(id.as_str(), "createForm" | "createResponse");
    for (status, response) in operation.responses.responses.iter_mut() {
        if let RefOr::T(response) = response {
            add_common_headers(response);
            if creates && status == "201" {
                response.headers.insert(
                    "Idempotent-Replayed".to_owned(),
                    header(
                        string_enum(&["true"]),
                        "`true` when this is the replay of an earlier request with the same \
                         Idempotency-Key (no second object was created).",
                    ),
                );
            }
            if status.starts_with('2') {
                for (target, parameters) in links_of(&id) {
                    let mut link = LinkBuilder::new().operation_id(*target);
                    for (name, expression) in *parameters {
                        link = link.parameter(*name, *expression);
                    }
                    response
                        .links
                        .insert((*target).to_owned(), RefOr::T(link.build()));
                }
            }
        }
    }
    let mut reasons: Vec<ErrorReason> = EVERY_CALL.to_vec();
    if scoped(&id) {
        reasons.push(ErrorReason::InsufficientScope);
    }
    reasons.extend_from_slice(errors_of(&id));
    let mut by_status: BTreeMap<u16, Vec<ErrorReason>> = BTreeMap::new();
    for reason in reasons {
        by_status
            .entry(status_of(reason).as_u16())
            .or_default()
            .push(reason);
    }
    for (status, reasons) in by_status {
        let name = reasons
            .iter()
            .map(|r| pascal_case(r.code()))
            .collect::<Vec<_>>()
            .join("Or");
        shared
            .entry(name.clone())
            .or_insert_with(|| RefOr::T(error_response(status, &reasons)));
        operation.responses.responses.insert(
            status.to_string(),
            RefOr::Ref(Ref::new(format!("#/components/responses/{name}"))),
        );
    }
}

fn header(schema: impl Into<RefOr<Schema>>, description: &str) -> RefOr<utoipa::openapi::Header> {
    RefOr::T(
        HeaderBuilder::new()
            .schema(Some(schema))
            .description(Some(description))
            .build(),
    )
}

fn integer() -> Schema {
    ObjectBuilder::new().schema_type(Type::Integer).into()
}

fn string_enum(values: &[&str]) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .into()
}

/// `NOT_FOUND` → `NotFound`.
fn pascal_case(code: &str) -> String {
    code.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_string() + &chars.as_str().to_ascii_lowercase()
            })
        })
        .collect()
}

/// The headers of every reply of the API (components, referenced by each response).
fn headers() -> [(&'static str, Schema, &'static str); 4] {
    [
        (
            "X-Request-Id",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                    utoipa::openapi::KnownFormat::Uuid,
                )))
                .into(),
            "Unique id of this request, also in the service's logs: quote it when reporting \
             a problem.",
        ),
        (
            "X-RateLimit-Limit",
            integer(),
            "Requests allowed in the current window (per key; per client IP for requests \
             that fail authentication). Absent when the service could not be reached.",
        ),
        (
            "X-RateLimit-Remaining",
            integer(),
            "Requests left in the current window.",
        ),
        (
            "X-RateLimit-Reset",
            integer(),
            "Unix time, in seconds, at which the current window ends.",
        ),
    ]
}

fn add_common_headers(response: &mut Response) {
    for (name, _, _) in headers() {
        response.headers.insert(
            name.to_owned(),
            RefOr::Ref(Ref::new(format!("#/components/headers/{name}"))),
        );
    }
}

/// The error envelope of every failure: `{success: false, error: {code, message}}`.
fn error_schema() -> Schema {
    let codes = ALL_REASONS.iter().map(|r| r.code()).collect::<Vec<_>>();
    let error = ObjectBuilder::new()
        .property("code", string_enum(&codes))
        .required("code")
        .property(
            "message",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some("For people; never contains keys or secrets.")),
        )
        .required("message")
        .property(
            "retryAfter",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .description(Some("RATE_LIMITED only: seconds until the window resets.")),
        );
    ObjectBuilder::new()
        .description(Some("The error envelope of every failed request."))
        .property(
            "success",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .enum_values(Some([false])),
        )
        .required("success")
        .property("error", error)
        .required("error")
        .into()
}

/// Every reason the REST API answers with (the hosted pages' and admin's excluded).
const ALL_REASONS: &[ErrorReason] = &[
    ErrorReason::Unauthenticated,
    ErrorReason::KeyInvalid,
    ErrorReason::InsufficientScope,
    ErrorReason::PlanRequired,
    ErrorReason::ResponseLimitReached,
    ErrorReason::NotFound,
    ErrorReason::MethodNotAllowed,
    ErrorReason::RequestTimeout,
    ErrorReason::PayloadTooLarge,
    ErrorReason::UnsupportedMediaType,
    ErrorReason::ValidationError,
    ErrorReason::FormNotPublished,
    ErrorReason::FormClosed,
    ErrorReason::RateLimited,
    ErrorReason::Internal,
    ErrorReason::ServiceUnavailable,
];

/// One error status of an operation: the envelope with the codes it can carry there.
fn error_response(status: u16, reasons: &[ErrorReason]) -> Response {
    let codes = reasons.iter().map(|r| r.code()).collect::<Vec<_>>();
    let narrowed = ObjectBuilder::new().property(
        "error",
        ObjectBuilder::new().property("code", string_enum(&codes)),
    );
    let schema = AllOfBuilder::new()
        .item(Ref::from_schema_name("Error"))
        .item(narrowed);
    let description = format!("{}: {}", reason_phrase(status), codes.join(", "));
    let mut response = ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new().schema(Some(schema)).build(),
        )
        .build();
    add_common_headers(&mut response);
    // Only a rate-limit refusal says when to come back (a 503 does not know).
    if status == 429 {
        response.headers.insert(
            "Retry-After".to_owned(),
            header(integer(), "Seconds to wait before trying again."),
        );
    }
    response
}

fn reason_phrase(status: u16) -> &'static str {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error")
}

//! Tenant isolation as a matrix: every REST route (read from the source of
//! `edge/router.rs`), every dashboard route (read from the source of
//! `edge/dashboard/mod.rs`, nested at `/app`) and every gRPC method (read from the
//! descriptor set) has a row saying how its isolation is checked, and the test checks it.
//! B's credentials (key, provider session and dashboard session) and an Enterprise
//! account's key acting on A's objects get 404 NOT_FOUND; lists show nothing of A's; A's
//! own calls work (the positive control of every cell); the dashboard-only OwnerService
//! refuses API keys. A route or method without a row, or a row without a route, fails
//! the test.

mod archive;
mod audit;
mod members;

use crate::dashboard_session::{Dashboard, signed_in};
use crate::fixtures::*;
use crate::harness::*;
use ::forms::accounts::Plan;
use ::forms::pb::{
    self, admin_service_client::AdminServiceClient, forms_service_client::FormsServiceClient,
    gateway_service_client::GatewayServiceClient,
    hosted_forms_service_client::HostedFormsServiceClient,
    notification_admin_service_client::NotificationAdminServiceClient,
    owner_service_client::OwnerServiceClient, responses_service_client::ResponsesServiceClient,
    sessions_service_client::SessionsServiceClient, usage_service_client::UsageServiceClient,
    webhook_admin_service_client::WebhookAdminServiceClient,
    webhooks_service_client::WebhooksServiceClient,
};
use prost::Message;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::time::{Duration, Instant};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

#[path = "isolation_rights.rs"]
mod rights;

const SESSION_SECRET: &str = "isolation-session-secret-of-32-bytes-or-more";
const UA: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
const NONCE: &str = "0123456789abcdef0123456789abcdef";

// ---------------------------------------------------------------------------------------
// The matrix rows
// ---------------------------------------------------------------------------------------

/// How a row's isolation is checked.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// Takes a foreign id: others get NOT_FOUND, the owner gets through.
    Foreign,
    /// Takes no foreign id: the caller sees (or makes) only its own.
    OwnOnly,
    /// Not tenant-scoped; the note says why, and what is checked instead.
    NotTenant,
    /// Open to anyone (sign-in, assets) or about the caller's own session only, never
    /// about an account's object; the note says why, and what is checked instead.
    Public,
    /// Takes foreign ids but answers about the caller's own only: others' ids are left
    /// out of the reply (not refused), and the owner's are in it.
    Filtered,
}

/// Every REST route (`METHOD path` as in the router) and every gRPC method
/// (`package.Service/Method`), with how its isolation is checked.
const ROWS: &[(&str, Kind, &str)] = &[
    // REST, under /api/v1.
    (
        "GET /api/v1/forms",
        Kind::OwnOnly,
        "B's list has B's forms only",
    ),
    (
        "POST /api/v1/forms",
        Kind::OwnOnly,
        "B's new form is B's: invisible to A",
    ),
    ("GET /api/v1/forms/{id}", Kind::Foreign, "A's form"),
    (
        "PUT /api/v1/forms/{id}",
        Kind::Foreign,
        "A's form, unchanged after",
    ),
    (
        "DELETE /api/v1/forms/{id}",
        Kind::Foreign,
        "A's form, still there",
    ),
    (
        "GET /api/v1/forms/{form_id}/responses",
        Kind::Foreign,
        "A's form",
    ),
    (
        "POST /api/v1/forms/{form_id}/responses",
        Kind::Foreign,
        "A's form, no response added",
    ),
    (
        "GET /api/v1/forms/{form_id}/responses/export",
        Kind::Foreign,
        "A's form (NDJSON and CSV); A's own export holds A's responses only",
    ),
    (
        "GET /api/v1/forms/{form_id}/responses/{id}",
        Kind::Foreign,
        "A's response, under A's and under B's own form",
    ),
    (
        "DELETE /api/v1/forms/{form_id}/responses/{id}",
        Kind::Foreign,
        "A's response, under A's and B's form; still there",
    ),
    (
        "GET /api/v1/forms/{form_id}/responses/{id}/files/{file_id}",
        Kind::Foreign,
        "A's file, under A's and B's form/response",
    ),
    (
        "GET /api/v1/forms/{form_id}/summary",
        Kind::Foreign,
        "A's form (with and without a window)",
    ),
    (
        "PUT /api/v1/forms/{form_id}/logo",
        Kind::Foreign,
        "A's form, its theme's logo unchanged",
    ),
    (
        "DELETE /api/v1/forms/{form_id}/logo",
        Kind::Foreign,
        "A's form, its theme's logo still there",
    ),
    (
        "GET /api/v1/forms/{form_id}/webhooks",
        Kind::Foreign,
        "A's form",
    ),
    (
        "POST /api/v1/forms/{form_id}/webhooks",
        Kind::Foreign,
        "A's form, no webhook added",
    ),
    (
        "DELETE /api/v1/forms/{form_id}/webhooks/{id}",
        Kind::Foreign,
        "A's webhook, under A's and B's form; still there",
    ),
    (
        "GET /api/v1/usage",
        Kind::OwnOnly,
        "usage shows the caller's key only",
    ),
    (
        "POST /api/v1/erasures",
        Kind::OwnOnly,
        "takes a value, not an id: finds and erases the caller's own responses only; checked: a value of A's response finds nothing for strangers (dry run and real), A's response stays, A's dry run finds it",
    ),
    (
        "GET /api/v1/audit",
        Kind::OwnOnly,
        "B's trail holds nothing of A's, even filtered by A's form (isolation/audit.rs)",
    ),
    (
        "GET /api/v1/audit/export",
        Kind::OwnOnly,
        "B's export holds nothing of A's, even filtered by A's form",
    ),
    // Hosted pages.
    (
        "GET /f/{short_id}",
        Kind::NotTenant,
        "public page of a published form by short id, no credentials; checked: a draft of A's stays 404 even with B's credentials",
    ),
    (
        "POST /f/{short_id}",
        Kind::NotTenant,
        "public submission, no credentials; checked: B's credentials change nothing, the response is A's form's, none lands in B's",
    ),
    (
        "GET /f/assets/conditions.js",
        Kind::NotTenant,
        "the hosted pages' script, the same bytes for anyone; checked: names no account's object",
    ),
    (
        "GET /f/{short_id}/challenge",
        Kind::NotTenant,
        "a proof-of-work challenge for the form's own allowed origins, no credentials; checked: A's site reads A's form's whoever asks, and A's draft answers 403 without a CORS header even with B's credentials",
    ),
    (
        "GET /f/{short_id}/thanks",
        Kind::NotTenant,
        "public confirmation after an endpoint post, no credentials; checked: A's draft stays 404 even with B's credentials",
    ),
    (
        "OPTIONS /f/{short_id}",
        Kind::NotTenant,
        "CORS preflight by the form's own allowed origins, no credentials; checked: A's origin is allowed on A's form whoever asks, and gets no CORS header on A's draft even with B's credentials",
    ),
    (
        "GET /f/{short_id}/theme.css",
        Kind::NotTenant,
        "a published form's public style sheet, no credentials; checked: A's draft's is 404 even with B's credentials",
    ),
    (
        "GET /f/{short_id}/logo",
        Kind::NotTenant,
        "a published form's public logo, no credentials; checked: A's draft's is 404 even with B's credentials",
    ),
    (
        "GET /f/assets/keys.js",
        Kind::NotTenant,
        "the hosted page's keyboard script compiled into the binary, no data",
    ),
    (
        "GET /f/assets/steps.js",
        Kind::NotTenant,
        "the one-question-at-a-time script compiled into the binary, no data",
    ),
    (
        "GET /f/assets/back.js",
        Kind::NotTenant,
        "the endpoint refusal page's script compiled into the binary, no data; checked: the body names no account's object",
    ),
    (
        "GET /f/assets/pow.js",
        Kind::NotTenant,
        "the hosted pages' proof-of-work script compiled into the binary, no data; checked: the body names no account's object",
    ),
    // Operations probes.
    (
        "GET /healthz",
        Kind::NotTenant,
        "liveness probe, no credentials, no data; checked: the body names no account's object",
    ),
    (
        "GET /readyz",
        Kind::NotTenant,
        "readiness probe, no credentials, no data; checked: the body names no account's object",
    ),
    // The API's description.
    (
        "GET /api/v1/openapi.json",
        Kind::NotTenant,
        "the OpenAPI document, no credentials, no data; checked: the body names no account's object",
    ),
    (
        "GET /api/v1/docs",
        Kind::NotTenant,
        "redirect to the API reference, no credentials, no data; checked: the body names no account's object",
    ),
    (
        "GET /api/v1/docs/{*file}",
        Kind::NotTenant,
        "the API reference's static files, no credentials, no data; checked: the body names no account's object",
    ),
    // gRPC, tenant API.
    (
        "forms.v1.FormsService/ListForms",
        Kind::OwnOnly,
        "B's list has B's forms only",
    ),
    (
        "forms.v1.FormsService/CreateForm",
        Kind::OwnOnly,
        "B's new form is B's: invisible to A",
    ),
    ("forms.v1.FormsService/GetForm", Kind::Foreign, "A's form"),
    (
        "forms.v1.FormsService/UpdateForm",
        Kind::Foreign,
        "A's form, unchanged after",
    ),
    (
        "forms.v1.FormsService/DeleteForm",
        Kind::Foreign,
        "A's form, still there",
    ),
    (
        "forms.v1.FormsService/SetFormLogo",
        Kind::Foreign,
        "A's form, its logo unchanged",
    ),
    (
        "forms.v1.ResponsesService/ListResponses",
        Kind::Foreign,
        "A's form",
    ),
    (
        "forms.v1.ResponsesService/GetResponse",
        Kind::Foreign,
        "A's response under A's and B's form",
    ),
    (
        "forms.v1.ResponsesService/CreateResponse",
        Kind::Foreign,
        "A's form",
    ),
    (
        "forms.v1.ResponsesService/DeleteResponse",
        Kind::Foreign,
        "A's response under A's and B's form",
    ),
    (
        "forms.v1.ResponsesService/EraseRespondent",
        Kind::OwnOnly,
        "takes a value, not an id: the caller's own responses only; checked as POST /api/v1/erasures",
    ),
    (
        "forms.v1.ResponsesService/GetResponseFile",
        Kind::Foreign,
        "A's file under A's and B's form/response",
    ),
    (
        "forms.v1.ResponsesService/ExportResponses",
        Kind::Foreign,
        "A's form, refused before any byte is streamed; A's own export holds A's responses only",
    ),
    (
        "forms.v1.ResponsesService/GetFormSummary",
        Kind::Foreign,
        "A's form; A's own summary counts A's responses only",
    ),
    (
        "forms.v1.WebhooksService/ListWebhooks",
        Kind::Foreign,
        "A's form",
    ),
    (
        "forms.v1.WebhooksService/CreateWebhook",
        Kind::Foreign,
        "A's form",
    ),
    (
        "forms.v1.WebhooksService/DeleteWebhook",
        Kind::Foreign,
        "A's webhook under A's and B's form",
    ),
    (
        "forms.v1.UsageService/GetUsage",
        Kind::OwnOnly,
        "usage shows the caller's key only",
    ),
    (
        "forms.v1.AuditService/ListAuditEntries",
        Kind::OwnOnly,
        "the caller's account's chain only: B's holds nothing of A's, even filtered by A's form",
    ),
    (
        "forms.v1.AuditService/ExportAuditEntries",
        Kind::OwnOnly,
        "as ListAuditEntries",
    ),
    // gRPC, not tenant-scoped.
    (
        "forms.v1.HostedFormsService/GetHostedForm",
        Kind::NotTenant,
        "public (visitors, no credentials) by short id of a published form; checked: A's draft is NOT_FOUND even with B's credentials",
    ),
    (
        "forms.v1.HostedFormsService/AdmitHostedSubmission",
        Kind::NotTenant,
        "public, by short id of a published form and its page's token; checked: A's draft is NOT_FOUND with a token of A's and B's credentials",
    ),
    (
        "forms.v1.HostedFormsService/SubmitHostedForm",
        Kind::NotTenant,
        "public submission; checked: with B's credentials the response still goes to A's form only",
    ),
    (
        "forms.v1.HostedFormsService/GetHostedTheme",
        Kind::NotTenant,
        "public, by short id of a published form; checked: A's draft is NOT_FOUND even with B's credentials",
    ),
    (
        "forms.v1.HostedFormsService/GetHostedLogo",
        Kind::NotTenant,
        "public, by short id of a published form; checked: A's draft is NOT_FOUND even with B's credentials",
    ),
    (
        "forms.v1.HostedFormsService/CheckEndpointOrigin",
        Kind::NotTenant,
        "public, by short id and the form's own allowed origins; checked: A's draft is ORIGIN_NOT_ALLOWED with B's credentials, as an unknown form",
    ),
    (
        "forms.v1.HostedFormsService/GetEndpointChallenge",
        Kind::NotTenant,
        "public, by short id and the form's own allowed origins; checked: A's draft is ORIGIN_NOT_ALLOWED with B's credentials",
    ),
    (
        "forms.v1.HostedFormsService/AdmitEndpointSubmission",
        Kind::NotTenant,
        "public, by short id and the form's own allowed origins; checked: A's draft is ORIGIN_NOT_ALLOWED with B's credentials",
    ),
    (
        "forms.v1.HostedFormsService/SubmitToEndpoint",
        Kind::NotTenant,
        "public submission from an allowed origin; checked: with B's credentials the response still goes to A's form only",
    ),
    (
        "forms.v1.GatewayService/RejectRequest",
        Kind::NotTenant,
        "edge-internal, takes no id and always answers with an error; checked: it errors for B with the asked reason",
    ),
    (
        "forms.v1.AdminService/GetAccount",
        Kind::NotTenant,
        "operator token only; checked: B's key/session refused ADMIN_DENIED, the operator gets through",
    ),
    (
        "forms.v1.AdminService/UpdateAccount",
        Kind::NotTenant,
        "operator token only; as above",
    ),
    (
        "forms.v1.AdminService/CreateKey",
        Kind::NotTenant,
        "operator token only; as above",
    ),
    (
        "forms.v1.AdminService/RevokeKey",
        Kind::NotTenant,
        "operator token only; as above (A's key still works)",
    ),
    (
        "forms.v1.AdminService/ListKeys",
        Kind::NotTenant,
        "operator token only; as above",
    ),
    (
        "forms.v1.AdminService/LinkIdentity",
        Kind::NotTenant,
        "operator token only; as above (B's session stays B's)",
    ),
    (
        "forms.v1.AdminService/UnlinkIdentity",
        Kind::NotTenant,
        "operator token only; as above (A's session still signs in to A)",
    ),
    (
        "forms.v1.WebhookAdminService/UpdateWebhook",
        Kind::NotTenant,
        "operator token only; as above",
    ),
    (
        "forms.v1.WebhookAdminService/ListDeliveries",
        Kind::NotTenant,
        "operator token only; as above (lists only that webhook's deliveries)",
    ),
    (
        "forms.v1.WebhookAdminService/RetryDelivery",
        Kind::NotTenant,
        "operator token only; as above",
    ),
    (
        "forms.v1.NotificationAdminService/ListNotifications",
        Kind::NotTenant,
        "operator token only; as above",
    ),
    (
        "forms.v1.AuditAdminService/VerifyAuditTrail",
        Kind::NotTenant,
        "operator token only: walks every chain; as above",
    ),
    // The dashboard, under /app (read from edge/dashboard/mod.rs), with B's session.
    (
        "GET /app/",
        Kind::Public,
        "a redirect to /app/forms, no data; checked: it names nothing of A's",
    ),
    (
        "GET /",
        Kind::Public,
        "a redirect to /app/forms, no data; checked: it names nothing of A's",
    ),
    (
        "GET /favicon.ico",
        Kind::Public,
        "the icon compiled into the binary, no data; checked: it names nothing of A's",
    ),
    (
        "GET /app/assets/{file}",
        Kind::Public,
        "the style sheet and script compiled into the binary, no data; checked: they name nothing of A's",
    ),
    (
        "GET /app/sign-in",
        Kind::Public,
        "the sign-in page, before any session; checked: it names nothing of A's",
    ),
    (
        "GET /app/sign-in/link",
        Kind::Public,
        "a sign-in link's page: its secret token, not an id; checked: a bogus token names nothing of A's",
    ),
    (
        "POST /app/sign-in/link",
        Kind::Public,
        "redeems a secret token, not an id; checked: a bogus token opens no session",
    ),
    (
        "POST /app/sign-in/cookie",
        Kind::Public,
        "signs in with the caller's own provider cookie; checked: B's cookie opens B's session, which shows nothing of A's",
    ),
    (
        "POST /app/sign-in/mail",
        Kind::Public,
        "takes an address and answers the same for any; checked: it names nothing of A's",
    ),
    (
        "GET /app/sign-in/oidc",
        Kind::Public,
        "starts the caller's own provider sign-in, no id; checked: it names nothing of A's",
    ),
    (
        "GET /app/sign-in/oidc/callback",
        Kind::Public,
        "the provider's secret state and code, not an id; checked: bogus ones open no session",
    ),
    (
        "POST /app/sign-out",
        Kind::Public,
        "ends the caller's own session only; checked: B signing out ends B's session, A's goes on",
    ),
    (
        "GET /app/forms",
        Kind::OwnOnly,
        "B's list (and search) shows B's forms only",
    ),
    (
        "POST /app/forms",
        Kind::OwnOnly,
        "B's new form is B's: invisible to A",
    ),
    ("GET /app/forms/{id}", Kind::Foreign, "A's form's builder"),
    (
        "POST /app/forms/{id}/details",
        Kind::Foreign,
        "A's form, unchanged after",
    ),
    (
        "POST /app/forms/{id}/fields",
        Kind::Foreign,
        "A's form, no field added",
    ),
    (
        "POST /app/forms/{id}/fields/{field_id}",
        Kind::Foreign,
        "A's field, under A's and B's form; unchanged",
    ),
    (
        "POST /app/forms/{id}/fields/{field_id}/conditions",
        Kind::Foreign,
        "A's field, under A's and B's form; no condition added",
    ),
    (
        "POST /app/forms/{id}/fields/{field_id}/move",
        Kind::Foreign,
        "A's field, under A's and B's form; not moved",
    ),
    (
        "POST /app/forms/{id}/fields/{field_id}/duplicate",
        Kind::Foreign,
        "A's field, under A's and B's form; not copied",
    ),
    (
        "POST /app/forms/{id}/order",
        Kind::Foreign,
        "A's form; its questions' order unchanged",
    ),
    (
        "POST /app/forms/{id}/fields/{field_id}/remove",
        Kind::Foreign,
        "A's field, under A's and B's form; still there",
    ),
    (
        "POST /app/forms/{id}/settings",
        Kind::Foreign,
        "A's form, unchanged after",
    ),
    (
        "POST /app/forms/{id}/languages",
        Kind::Foreign,
        "A's form, its languages unchanged",
    ),
    (
        "GET /app/forms/{id}/languages/{lang}",
        Kind::Foreign,
        "A's form's texts in a language",
    ),
    (
        "POST /app/forms/{id}/languages/{lang}",
        Kind::Foreign,
        "A's form, its translations unchanged",
    ),
    (
        "POST /app/forms/{id}/languages/{lang}/remove",
        Kind::Foreign,
        "A's form, its language still there",
    ),
    (
        "POST /app/forms/{id}/design",
        Kind::Foreign,
        "A's form, its theme unchanged",
    ),
    (
        "POST /app/forms/{id}/logo",
        Kind::Foreign,
        "A's form, its logo unchanged",
    ),
    (
        "POST /app/forms/{id}/status",
        Kind::Foreign,
        "A's form, still published",
    ),
    (
        "POST /app/forms/{id}/delete",
        Kind::Foreign,
        "A's form, still there",
    ),
    (
        "GET /app/forms/{id}/responses",
        Kind::Foreign,
        "A's inbox; B's own inbox shows nothing of A's",
    ),
    (
        "GET /app/forms/{id}/summary",
        Kind::Foreign,
        "A's summary; B's own summary shows nothing of A's",
    ),
    (
        "GET /app/forms/{id}/responses/export.csv",
        Kind::Foreign,
        "A's form",
    ),
    (
        "GET /app/forms/{id}/responses/export.xlsx",
        Kind::Foreign,
        "A's form",
    ),
    (
        "POST /app/forms/{id}/responses/selection",
        Kind::Foreign,
        "A's form; its ticked responses neither downloaded nor deleted",
    ),
    (
        "GET /app/forms/{id}/responses/export.ndjson",
        Kind::Foreign,
        "A's form; A's own export holds A's responses only",
    ),
    (
        "GET /app/forms/{id}/responses/{response_id}",
        Kind::Foreign,
        "A's response, under A's and B's form",
    ),
    (
        "POST /app/forms/{id}/responses/{response_id}/delete",
        Kind::Foreign,
        "A's response, under A's and B's form; still there",
    ),
    (
        "GET /app/forms/{id}/responses/{response_id}/files/{file_id}",
        Kind::Foreign,
        "A's file, under A's and B's form/response",
    ),
    (
        "GET /app/forms/{id}/webhooks",
        Kind::Foreign,
        "A's form's webhooks; B's own list shows nothing of A's",
    ),
    (
        "POST /app/forms/{id}/webhooks",
        Kind::Foreign,
        "A's form, no webhook added",
    ),
    (
        "GET /app/forms/{id}/webhooks/{webhook_id}",
        Kind::Foreign,
        "A's webhook and delivery log, under A's and B's form",
    ),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}",
        Kind::Foreign,
        "A's webhook, under A's and B's form; unchanged",
    ),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}/delete",
        Kind::Foreign,
        "A's webhook, under A's and B's form; still there",
    ),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}/test",
        Kind::Foreign,
        "A's webhook, under A's and B's form; no delivery added",
    ),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
        Kind::Foreign,
        "A's delivery, under A's webhook, B's form, and B's webhook; not retried",
    ),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/send",
        Kind::Foreign,
        "A's delivery, under A's webhook, B's form, and B's webhook; not made due",
    ),
    (
        "GET /app/keys",
        Kind::OwnOnly,
        "B's list shows B's keys only",
    ),
    (
        "POST /app/keys",
        Kind::OwnOnly,
        "B's new key is B's: A's keys unchanged",
    ),
    ("GET /app/keys/{key_id}", Kind::Foreign, "A's key's usage"),
    (
        "GET /app/keys/{key_id}/revoke",
        Kind::Foreign,
        "A's key's revoke confirmation",
    ),
    (
        "POST /app/keys/{key_id}/revoke",
        Kind::Foreign,
        "A's key, still working",
    ),
    (
        "GET /app/account",
        Kind::OwnOnly,
        "B's account page shows B's identities only",
    ),
    (
        "GET /app/audit",
        Kind::OwnOnly,
        "B's audit page shows nothing of A's, even filtered by A's form",
    ),
    (
        "POST /app/account/notifications",
        Kind::OwnOnly,
        "sets the session's own account's notification address; checked: B's post changes B's, A's stays",
    ),
    (
        "POST /app/account/unlink",
        Kind::Foreign,
        "A's identity subject, still linked to A",
    ),
    (
        "GET /app/account/erasure",
        Kind::OwnOnly,
        "a form to type a value into; checked: B's page names nothing of A's",
    ),
    (
        "POST /app/account/erasure",
        Kind::OwnOnly,
        "the session's own account's responses only; checked: B's session finds and erases nothing of A's, A's finds A's",
    ),
    (
        "POST /app/account/design",
        Kind::OwnOnly,
        "the session's own account's default design; checked: B's gRPC call leaves A's alone",
    ),
    (
        "GET /app/members",
        Kind::OwnOnly,
        "the session's own account's members; checked: B's page names none of A's",
    ),
    (
        "POST /app/members/invite",
        Kind::OwnOnly,
        "invites into the session's own account; checked: A's invitations unchanged by B's",
    ),
    (
        "POST /app/members/leave",
        Kind::OwnOnly,
        "the session's own membership only; checked: B's last owner is told to keep one, A's members unchanged",
    ),
    (
        "POST /app/members/{person_id}/role",
        Kind::Foreign,
        "A's member's role, unchanged",
    ),
    (
        "POST /app/members/{person_id}/remove",
        Kind::Foreign,
        "A's owner, still a member",
    ),
    (
        "POST /app/invitations/{invitation_id}/revoke",
        Kind::Foreign,
        "A's invitation, still pending",
    ),
    (
        "GET /app/invitation",
        Kind::Public,
        "takes a secret token, not an id; checked: a bogus one names nothing of A's",
    ),
    (
        "POST /app/invitation",
        Kind::Public,
        "takes a secret token, not an id; checked: a bogus one opens no session and changes nothing of A's",
    ),
    (
        "POST /app/accounts/switch",
        Kind::Foreign,
        "A's account, which B's person is no member of: no session of A's",
    ),
    // gRPC, the dashboard's own services.
    (
        "forms.v1.MembersService/ListMembers",
        Kind::OwnOnly,
        "the session's own account's members; checked: B's list names none of A's",
    ),
    (
        "forms.v1.MembersService/InviteMember",
        Kind::OwnOnly,
        "invites into the session's own account; checked: A's invitations unchanged by B's",
    ),
    (
        "forms.v1.MembersService/RevokeInvitation",
        Kind::Foreign,
        "A's invitation, still pending",
    ),
    (
        "forms.v1.MembersService/GetInvitation",
        Kind::Public,
        "takes a secret token, not an id; checked: a bogus one is NOT_FOUND, even with B's session",
    ),
    (
        "forms.v1.MembersService/AcceptInvitation",
        Kind::Public,
        "takes a secret token, not an id; checked: a bogus one is NOT_FOUND, even with B's session",
    ),
    (
        "forms.v1.MembersService/ChangeMemberRole",
        Kind::Foreign,
        "A's member's role, unchanged",
    ),
    (
        "forms.v1.MembersService/RemoveMember",
        Kind::Foreign,
        "A's owner, still a member",
    ),
    (
        "forms.v1.MembersService/LeaveAccount",
        Kind::OwnOnly,
        "the session's own membership only; checked: B's last owner is told to keep one",
    ),
    (
        "forms.v1.MembersService/ListMyAccounts",
        Kind::OwnOnly,
        "the session's person's accounts; checked: B's names not A's",
    ),
    (
        "forms.v1.MembersService/SwitchAccount",
        Kind::Foreign,
        "A's account, which B's person is no member of: NOT_FOUND",
    ),
    (
        "forms.v1.AccountArchiveService/ExportAccount",
        Kind::NotTenant,
        "operator token only; checked: every tenant credential refused ADMIN_DENIED, even a key sent as the token; the operator gets through",
    ),
    (
        "forms.v1.AccountArchiveService/ImportAccount",
        Kind::NotTenant,
        "operator token only; checked: every tenant credential refused ADMIN_DENIED, even a key sent as the token; the operator gets through",
    ),
    (
        "forms.v1.SessionsService/CreateSignInLink",
        Kind::NotTenant,
        "operator token only; checked: B's key, provider session and dashboard session refused ADMIN_DENIED, the operator gets through",
    ),
    (
        "forms.v1.SessionsService/MailSignInLink",
        Kind::Public,
        "takes an address, not an id, and answers the same for any; checked: the same reply for two addresses, naming nothing of A's",
    ),
    (
        "forms.v1.SessionsService/RedeemSignInLink",
        Kind::Public,
        "takes a secret token, not an id; checked: a bogus one opens no session, even with B's session",
    ),
    (
        "forms.v1.SessionsService/SignInWithProviderCookie",
        Kind::Public,
        "signs in the caller's own provider subject; checked: B's cookie opens a session of B's account",
    ),
    (
        "forms.v1.SessionsService/BeginOidcSignIn",
        Kind::Public,
        "starts the caller's own provider sign-in, no id; checked: it names nothing of A's",
    ),
    (
        "forms.v1.SessionsService/FinishOidcSignIn",
        Kind::Public,
        "takes the provider's secret state and code, not an id; checked: bogus ones open no session",
    ),
    (
        "forms.v1.SessionsService/GetSession",
        Kind::Public,
        "the caller's own session; checked: B's session is B's account, A's is A's",
    ),
    (
        "forms.v1.SessionsService/EndSession",
        Kind::Public,
        "ends the caller's own session; checked: B's ends B's, A's goes on",
    ),
    (
        "forms.v1.OwnerService/GetOwnAccount",
        Kind::OwnOnly,
        "B's account, B's identities only; an API key is refused (dashboard only)",
    ),
    (
        "forms.v1.OwnerService/UnlinkOwnIdentity",
        Kind::Foreign,
        "A's subject, still linked; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/UpdateOwnAccount",
        Kind::OwnOnly,
        "changes B's own account only; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/SetOwnDefaultTheme",
        Kind::OwnOnly,
        "B's own account's default theme, not A's; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/ListOwnKeys",
        Kind::OwnOnly,
        "B's keys only; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/CreateOwnKey",
        Kind::OwnOnly,
        "B's new key is B's, not A's; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/RevokeOwnKey",
        Kind::Foreign,
        "A's key, still working; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/GetOwnKeyUsage",
        Kind::Foreign,
        "A's key; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/UpdateOwnWebhook",
        Kind::Foreign,
        "A's webhook under A's and B's form; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/ListOwnDeliveries",
        Kind::Foreign,
        "A's webhook under A's and B's form; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/RetryOwnDelivery",
        Kind::Foreign,
        "A's delivery under A's webhook, B's form and B's webhook; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/SendOwnDeliveryNow",
        Kind::Foreign,
        "A's pending delivery under A's webhook, B's form and B's webhook; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/SendTestEvent",
        Kind::Foreign,
        "A's webhook under A's and B's form; an API key is refused",
    ),
    (
        "forms.v1.OwnerService/GetFormActivity",
        Kind::Filtered,
        "A's form ids are left out of B's reply, B's are in it; an API key is refused",
    ),
];

/// The REST routes of the router, as `METHOD path`, read from its source.
pub fn rest_routes() -> BTreeSet<String> {
    rest_routes_in(include_str!("../../edge/router.rs"))
}

/// The REST routes in the source `src` of a router module like `edge/router.rs`: the
/// `/api/v1` nest and the routes beside it. The `/app` nest is the dashboard's router,
/// whose routes are read from its own source (`dashboard_routes_in`).
fn rest_routes_in(src: &str) -> BTreeSet<String> {
    // `.route_layer(` wraps routes, it adds none.
    assert_eq!(
        src.matches(".route").count() - src.matches(".route_layer(").count(),
        src.matches(".route(").count(),
        "routes added by other means than .route(…): extend this parser"
    );
    assert!(
        !src.contains(".merge("),
        "merged routers: extend this parser"
    );
    let nests: Vec<&str> = src
        .match_indices(".nest(")
        .map(|(at, _)| src[at..].split('"').nth(1).unwrap_or_default())
        .collect();
    assert_eq!(
        nests.iter().filter(|n| **n == "/api/v1").count(),
        1,
        "one /api/v1 nest expected: {nests:?}"
    );
    assert!(
        nests.iter().all(|n| *n == "/api/v1" || *n == "/app"),
        "nested routers other than /api/v1 and /app (the dashboard): extend this parser: {nests:?}"
    );
    assert!(
        !nests.contains(&"/app")
            || src.contains(".nest(\"/app\", crate::dashboard::router(state.clone()))"),
        "/app nests something else than the dashboard's router: extend this parser"
    );
    let (api, outer) = src
        .split_once(".nest(\"/api/v1\"")
        .expect("the /api/v1 nest");
    let mut routes = BTreeSet::new();
    routes_of(api, "/api/v1", &mut routes);
    routes_of(outer, "", &mut routes);
    routes
}

/// The dashboard's routes, as `METHOD /app/…`, read from the source of its router.
pub fn dashboard_routes() -> BTreeSet<String> {
    dashboard_routes_in(include_str!("../../edge/dashboard/mod.rs"))
}

/// The routes of the dashboard's `router()` in the source `src` of `edge/dashboard/mod.rs`,
/// under its nest, `/app`.
fn dashboard_routes_in(src: &str) -> BTreeSet<String> {
    let body = src
        .split_once("fn router(")
        .expect("the dashboard's fn router(")
        .1;
    let body = body.split_once("\n}\n").map_or(body, |(body, _)| body);
    assert_eq!(
        body.matches(".route").count(),
        body.matches(".route(").count(),
        "dashboard routes added by other means than .route(…): extend this parser"
    );
    assert!(
        !body.contains(".merge(") && !body.contains(".nest("),
        "merged or nested routers in the dashboard: extend this parser"
    );
    let mut routes = BTreeSet::new();
    routes_of(body, "/app", &mut routes);
    routes
}

/// Adds the routes of the `.route("PATH", get(…).post(…))` calls of `part` (router
/// source), as `METHOD {prefix}PATH`.
fn routes_of(part: &str, prefix: &str, routes: &mut BTreeSet<String>) {
    let mut rest = part;
    while let Some(i) = rest.find(".route(") {
        rest = &rest[i + ".route(".len()..];
        let open = rest.find('"').expect("route path literal");
        let close = open + 1 + rest[open + 1..].find('"').expect("end of path");
        let path = &rest[open + 1..close];
        let mut depth = 1;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .expect("end of .route(")
            .0;
        let body = &rest[close + 1..end];
        let mut methods = 0;
        for method in [
            "get", "post", "put", "delete", "patch", "head", "options", "any",
        ] {
            let needle = format!("{method}(");
            for (at, _) in body.match_indices(&needle) {
                let before = body[..at].chars().next_back().unwrap_or(' ');
                if before.is_alphanumeric() || before == '_' || before == ':' {
                    continue;
                }
                routes.insert(format!("{} {prefix}{path}", method.to_uppercase()));
                methods += 1;
            }
        }
        assert!(methods > 0, "no methods found for route {path}");
        rest = &rest[end..];
    }
}

/// Every `package.Service/Method` of package forms.v1 in the descriptor set.
fn grpc_methods() -> BTreeSet<String> {
    let set = prost_types::FileDescriptorSet::decode(pb::FILE_DESCRIPTOR_SET)
        .expect("decoding the descriptor set");
    let mut methods = BTreeSet::new();
    for file in set.file {
        if file.package() != "forms.v1" {
            continue;
        }
        for service in &file.service {
            for method in &service.method {
                methods.insert(format!("forms.v1.{}/{}", service.name(), method.name()));
            }
        }
    }
    methods
}

/// Routes and methods without a row, and rows without a route or method.
fn row_gaps(rest: &BTreeSet<String>, grpc: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    let rows: BTreeSet<String> = ROWS.iter().map(|(r, _, _)| (*r).to_owned()).collect();
    let found: BTreeSet<String> = rest.iter().chain(grpc.iter()).cloned().collect();
    (
        found.difference(&rows).cloned().collect(),
        rows.difference(&found).cloned().collect(),
    )
}

/// The guard itself: a route added to (or removed from) the router source, and a method
/// added to the descriptor set, are caught.
#[test]
fn the_matrix_guard_catches_new_and_stale_routes() {
    let src = include_str!("../../edge/router.rs");
    let dash_src = include_str!("../../edge/dashboard/mod.rs");
    let grpc = grpc_methods();
    let dash = dashboard_routes_in(dash_src);
    let http =
        |rest: BTreeSet<String>| -> BTreeSet<String> { rest.union(&dash).cloned().collect() };
    let (missing, stale) = row_gaps(&http(rest_routes_in(src)), &grpc);
    assert!(
        missing.is_empty() && stale.is_empty(),
        "{missing:?} {stale:?}"
    );

    let added = src
        .replacen(
            ".route(\"/usage\", get(usage::get))",
            ".route(\"/usage\", get(usage::get))\n        .route(\"/forms/{id}/export\", get(form::export).post(form::export))",
            1,
        )
        .replacen(
            "\n        .fallback(not_found)",
            "\n        .route(\"/metrics\", get(metrics))\n        .fallback(not_found)",
            1,
        );
    let (missing, stale) = row_gaps(&http(rest_routes_in(&added)), &grpc);
    assert_eq!(
        missing,
        [
            "GET /api/v1/forms/{id}/export",
            "GET /metrics",
            "POST /api/v1/forms/{id}/export"
        ],
        "new routes need rows"
    );
    assert!(stale.is_empty(), "{stale:?}");

    let removed = src.replacen(".route(\"/usage\", get(usage::get))", "", 1);
    let (_, stale) = row_gaps(&http(rest_routes_in(&removed)), &grpc);
    assert_eq!(
        stale,
        ["GET /api/v1/usage"],
        "a removed route leaves a stale row"
    );

    let mut more = grpc.clone();
    more.insert("forms.v1.FormsService/ExportForm".to_owned());
    let (missing, _) = row_gaps(&http(rest_routes_in(src)), &more);
    assert_eq!(missing, ["forms.v1.FormsService/ExportForm"]);
}

// ---------------------------------------------------------------------------------------
// Credentials and the matrix bookkeeping
// ---------------------------------------------------------------------------------------

#[derive(Clone)]
enum Cred {
    Key(String),
    Session(String),
}

impl Cred {
    fn rest(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self {
            Cred::Key(key) => request.header("x-api-key", key),
            Cred::Session(jwt) => request.header("cookie", format!("session={jwt}")),
        }
    }

    fn grpc<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let (name, value) = match self {
            Cred::Key(key) => ("x-api-key", key.clone()),
            Cred::Session(jwt) => ("cookie", format!("session={jwt}")),
        };
        request
            .metadata_mut()
            .insert(name, value.parse().expect("metadata value"));
        request
    }
}

fn session_token(subject: &str) -> String {
    let claims = json!({"sub": subject, "exp": unix_now() + 3600});
    jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(SESSION_SECRET.as_bytes()),
    )
    .expect("session token")
}

#[derive(Default)]
struct Matrix {
    covered: BTreeMap<&'static str, usize>,
    /// Rows with a stranger refused (NOT_FOUND / ADMIN_DENIED) and rows with an allowed call.
    refused: BTreeSet<&'static str>,
    allowed: BTreeSet<&'static str>,
    cells: usize,
    failures: Vec<String>,
}

impl Matrix {
    fn hit(&mut self, row: &'static str) {
        assert!(
            ROWS.iter().any(|(r, _, _)| *r == row),
            "a check for {row}, which has no row"
        );
        *self.covered.entry(row).or_default() += 1;
        self.cells += 1;
    }

    fn fail(&mut self, message: String) {
        eprintln!("isolation: {message}");
        self.failures.push(message);
    }

    fn expect(&mut self, row: &'static str, ok: bool, message: impl FnOnce() -> String) {
        self.hit(row);
        if !ok {
            self.fail(format!("{row}: {}", message()));
        }
    }

    /// A REST request by a stranger: 404 NOT_FOUND in the SPEC envelope, with the
    /// message a request for unknown ids gets (no existence oracle).
    fn rest_not_found(&mut self, row: &'static str, who: &str, path: &str, reply: &Reply) {
        self.hit(row);
        if reply.status != 404 || reply.body["error"]["code"] != "NOT_FOUND" {
            self.fail(format!(
                "ISOLATION BUG: {row} at {path} as {who}: expected 404 NOT_FOUND, got {} {}",
                reply.status, reply.text
            ));
            return;
        }
        self.refused.insert(row);
        reply.error(404, "NOT_FOUND");
    }

    fn rest_status(
        &mut self,
        row: &'static str,
        who: &str,
        path: &str,
        reply: &Reply,
        status: u16,
    ) {
        if reply.status == status {
            self.allowed.insert(row);
        }
        self.expect(row, reply.status == status, || {
            format!(
                "positive control: {path} as {who}: expected {status}, got {} {}",
                reply.status, reply.text
            )
        });
    }

    fn grpc_not_found<T: std::fmt::Debug>(
        &mut self,
        row: &'static str,
        who: &str,
        what: &str,
        result: &Result<tonic::Response<T>, Status>,
    ) {
        self.hit(row);
        match result {
            Err(status)
                if status.code() == Code::NotFound
                    && status.get_details_error_info().map(|i| i.reason).as_deref()
                        == Some("NOT_FOUND") =>
            {
                self.refused.insert(row);
            }
            other => self.fail(format!(
                "ISOLATION BUG: {row} on {what} as {who}: expected NotFound/NOT_FOUND, got {other:?}"
            )),
        }
    }

    fn grpc_ok<T: std::fmt::Debug>(
        &mut self,
        row: &'static str,
        what: &str,
        result: Result<tonic::Response<T>, Status>,
    ) -> Option<T> {
        self.hit(row);
        match result {
            Ok(reply) => {
                self.allowed.insert(row);
                Some(reply.into_inner())
            }
            Err(e) => {
                self.fail(format!("{row}: positive control on {what} failed: {e:?}"));
                None
            }
        }
    }
}

/// A's own site, from which A's forms accept posts (endpoint mode).
const A_SITE: &str = "https://a-site.example";

/// Endpoint mode: the owner's own site posting to /f/{short_id}. A's forms accept A's
/// site only; nothing a stranger's credentials add reaches another account, and A's
/// draft answers as an unknown form.
async fn endpoint_rows(
    m: &mut Matrix,
    app: &TestApp,
    channel: &Channel,
    origin: &str,
    a: &Tenant,
    b: &Tenant,
    strangers: &[(&str, Cred, &Tenant)],
) {
    for id in [&a.form_id, &a.draft_form_id] {
        app.put(
            &format!("/forms/{id}"),
            &a.key.key,
            &json!({"settings": {"allowed_origins": [A_SITE]}}),
        )
        .await
        .ok(200);
    }
    let client = reqwest::Client::new();
    let preflight = |short_id: &str| {
        client
            .request(reqwest::Method::OPTIONS, format!("{origin}/f/{short_id}"))
            .header("origin", A_SITE)
            .header("access-control-request-method", "POST")
    };
    let row = "OPTIONS /f/{short_id}";
    for (who, cred, _) in strangers {
        let allowed = cred
            .rest(preflight(&a.short_id))
            .send()
            .await
            .expect("preflight");
        let acao = allowed
            .headers()
            .get("access-control-allow-origin")
            .cloned();
        m.expect(row, acao.as_ref().is_some_and(|v| v == A_SITE), || {
            format!("A's site's preflight on A's form as {who}: {acao:?}")
        });
        let draft = cred
            .rest(preflight(&a.draft_short_id))
            .send()
            .await
            .expect("preflight");
        let acao = draft.headers().get("access-control-allow-origin").cloned();
        m.expect(row, acao.is_none(), || {
            format!("ISOLATION BUG: A's draft answered a preflight as {who}: {acao:?}")
        });
    }
    let row = "GET /f/{short_id}/challenge";
    for (who, cred, _) in strangers {
        let challenge = |short_id: &str| {
            cred.rest(
                client
                    .get(format!("{origin}/f/{short_id}/challenge"))
                    .header("origin", A_SITE),
            )
        };
        let own = challenge(&a.short_id).send().await.expect("challenge");
        let status = own.status();
        m.expect(row, status == 200, || {
            format!("A's site's challenge of A's form as {who}: {status}")
        });
        let draft = challenge(&a.draft_short_id)
            .send()
            .await
            .expect("challenge");
        let acao = draft.headers().get("access-control-allow-origin").cloned();
        let status = draft.status();
        m.expect(row, status == 403 && acao.is_none(), || {
            format!("ISOLATION BUG: A's draft gave a challenge as {who}: {status} {acao:?}")
        });
    }
    let row = "GET /f/{short_id}/thanks";
    let thanks = client
        .get(format!("{origin}/f/{}/thanks", a.short_id))
        .send()
        .await
        .expect("thanks");
    m.expect(row, thanks.status() == 200, || {
        format!("A's confirmation page: {}", thanks.status())
    });
    for (who, cred, _) in strangers {
        let draft = cred
            .rest(client.get(format!("{origin}/f/{}/thanks", a.draft_short_id)))
            .send()
            .await
            .expect("thanks");
        m.expect(row, draft.status() == 404, || {
            format!(
                "ISOLATION BUG: A's draft's confirmation shown to {who}: {}",
                draft.status()
            )
        });
    }

    // gRPC: the form's own origins decide; a stranger's credentials change nothing.
    let mut hosted = HostedFormsServiceClient::new(channel.clone());
    let caller = || {
        Some(pb::EndpointCaller {
            origin: A_SITE.to_owned(),
            sec_fetch_site: "cross-site".to_owned(),
        })
    };
    let refused = |result: &Result<(), Status>| {
        matches!(result, Err(status) if status.code() == Code::PermissionDenied
            && status.get_details_error_info().map(|i| i.reason).as_deref()
                == Some("ORIGIN_NOT_ALLOWED"))
    };
    for (who, cred, _) in strangers {
        let check = |short_id: &str| pb::CheckEndpointOriginRequest {
            short_id: short_id.to_owned(),
            origin: A_SITE.to_owned(),
        };
        let row = "forms.v1.HostedFormsService/CheckEndpointOrigin";
        let own = hosted
            .check_endpoint_origin(cred.grpc(check(&a.short_id)))
            .await;
        m.expect(row, own.is_ok(), || {
            format!("A's site on A's form as {who}: {own:?}")
        });
        let draft = hosted
            .check_endpoint_origin(cred.grpc(check(&a.draft_short_id)))
            .await
            .map(|_| ());
        m.expect(row, refused(&draft), || {
            format!("ISOLATION BUG: A's draft takes A's site as {who}: {draft:?}")
        });
        let row = "forms.v1.HostedFormsService/GetEndpointChallenge";
        let draft = hosted
            .get_endpoint_challenge(cred.grpc(pb::GetEndpointChallengeRequest {
                short_id: a.draft_short_id.clone(),
                caller: caller(),
            }))
            .await
            .map(|_| ());
        m.expect(row, refused(&draft), || {
            format!("ISOLATION BUG: A's draft gave a challenge as {who}: {draft:?}")
        });
        let row = "forms.v1.HostedFormsService/AdmitEndpointSubmission";
        let admit = hosted
            .admit_endpoint_submission(cred.grpc(pb::AdmitEndpointSubmissionRequest {
                short_id: a.draft_short_id.clone(),
                caller: caller(),
            }))
            .await
            .map(|_| ());
        m.expect(row, refused(&admit), || {
            format!("ISOLATION BUG: A's draft admitted a post as {who}: {admit:?}")
        });
    }
    let row = "forms.v1.HostedFormsService/SubmitToEndpoint";
    let (before_a, before_b) = (response_count(app, a).await, response_count(app, b).await);
    let answers = json!({ a.text_field.clone(): "endpoint, with B's key" });
    let stored = hosted
        .submit_to_endpoint(b.key_cred().grpc(pb::SubmitToEndpointRequest {
            short_id: a.short_id.clone(),
            caller: caller(),
            answers: Some(pb::convert::object_to_struct(
                answers.as_object().expect("answers"),
            )),
            user_agent: UA.to_owned(),
            ..Default::default()
        }))
        .await;
    m.expect(row, stored.is_ok(), || {
        format!("A's site posting to A's form: {stored:?}")
    });
    m.expect(row, response_count(app, a).await == before_a + 1, || {
        "the endpoint post did not land in A's form".to_owned()
    });
    m.expect(row, response_count(app, b).await == before_b, || {
        "ISOLATION BUG: an endpoint post to A's form landed in B's".to_owned()
    });
}

/// Text with every UUID replaced by `<id>`.
fn without_ids(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if rest
            .get(..36)
            .is_some_and(|head| uuid::Uuid::parse_str(head).is_ok())
        {
            out.push_str("<id>");
            rest = &rest[36..];
        } else {
            let c = rest.chars().next().expect("a char");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------

/// One account and its objects.
struct Tenant {
    name: &'static str,
    key: TestKey,
    session: Option<String>,
    form_id: String,
    short_id: String,
    draft_form_id: String,
    draft_short_id: String,
    text_field: String,
    photo_field: String,
    response_id: String,
    file_response_id: String,
    file_id: String,
    webhook_id: String,
    delivery_ids: Vec<String>,
}

impl Tenant {
    fn key_cred(&self) -> Cred {
        Cred::Key(self.key.key.clone())
    }
}

fn upload_form(title: &str) -> Value {
    json!({"title": title, "fields": [
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": false, "allowed_types": ["png"], "max_size_mb": 1},
    ]})
}

async fn grpc_channel(app: &TestApp) -> Channel {
    Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core")
}

fn text_answers(field: &str, value: &str) -> prost_types::Struct {
    prost_types::Struct {
        fields: [(field.to_owned(), pb::convert::json_to_value(&json!(value)))].into(),
    }
}

/// A visitor's submission over gRPC, with the tiny PNG if `photo` is given.
async fn hosted_submit(
    hosted: &HostedFormsServiceClient<Channel>,
    short_id: &str,
    text: (&str, &str),
    photo: Option<&str>,
    cred: Option<&Cred>,
) -> String {
    let mut hosted = hosted.clone();
    let page = hosted
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: short_id.to_owned(),
            csrf_nonce: NONCE.to_owned(),
            ..Default::default()
        })
        .await
        .expect("GetHostedForm")
        .into_inner();
    let message = pb::SubmitHostedFormRequest {
        short_id: short_id.to_owned(),
        start_token: page.start_token,
        csrf_nonce: NONCE.to_owned(),
        answers: Some(text_answers(text.0, text.1)),
        user_agent: UA.to_owned(),
        honeypot_filled: false,
        files: photo
            .map(|field| pb::UploadedFile {
                field_id: field.to_owned(),
                file_name: "photo.png".to_owned(),
                content: crate::uploads::PNG.to_vec(),
            })
            .into_iter()
            .collect(),
        ..Default::default()
    };
    let request = match cred {
        Some(cred) => cred.grpc(message),
        None => tonic::Request::new(message),
    };
    let id = hosted
        .submit_hosted_form(request)
        .await
        .expect("SubmitHostedForm")
        .into_inner()
        .response_id;
    assert!(!id.is_empty(), "the submission was stored");
    id
}

async fn tenant(
    app: &TestApp,
    hosted: &HostedFormsServiceClient<Channel>,
    receiver: &Receiver,
    name: &'static str,
    plan: Plan,
    subject: Option<&str>,
) -> Tenant {
    let key = app.new_key(plan, ALL).await;
    let session = match subject {
        Some(subject) => {
            formsd_cli(
                &app.db.url,
                &[
                    "accounts",
                    "link-identity",
                    &key.account,
                    "--subject",
                    subject,
                ],
            )
            .await;
            Some(session_token(subject))
        }
        None => None,
    };
    let k = &key.key;
    let form = published_form(app, k, upload_form(name)["fields"].clone(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let fields = field_ids(&form);
    let draft = app.create_form(k, &upload_form("draft")).await;
    let webhook = app
        .post(
            &format!("/forms/{form_id}/webhooks"),
            k,
            &json!({"name": name, "url": receiver.url(&format!("/{name}")), "events": ["form.submitted"]}),
        )
        .await;
    let webhook_id = webhook.ok(201)["webhook"]["id"]
        .as_str()
        .expect("webhook id")
        .to_owned();
    let created = app
        .post(
            &format!("/forms/{form_id}/responses"),
            k,
            &json!({"answers": {fields[0].clone(): format!("{name} by API")}}),
        )
        .await;
    let response_id = created.ok(201)["response"]["id"]
        .as_str()
        .expect("response id")
        .to_owned();
    let file_response_id = hosted_submit(
        hosted,
        &short_id,
        (&fields[0], &format!("{name} by page")),
        Some(&fields[1]),
        None,
    )
    .await;
    let got = app
        .get(&format!("/forms/{form_id}/responses/{file_response_id}"), k)
        .await;
    let file_id = got.ok(200)["response"]["answers"][&fields[1]]["file_id"]
        .as_str()
        .expect("file id")
        .to_owned();
    let hits = receiver
        .wait_for(&format!("/{name}"), 2, Duration::from_secs(30))
        .await;
    Tenant {
        name,
        session,
        form_id,
        short_id,
        draft_form_id: draft["id"].as_str().expect("draft id").to_owned(),
        draft_short_id: draft["short_id"].as_str().expect("short id").to_owned(),
        text_field: fields[0].clone(),
        photo_field: fields[1].clone(),
        response_id,
        file_response_id,
        file_id,
        webhook_id,
        delivery_ids: hits.iter().map(|h| h.delivery_id()).collect(),
        key,
    }
}

/// A REST request with a credential.
async fn rest(
    app: &TestApp,
    cred: &Cred,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> Reply {
    let mut request = cred.rest(app.request(method, path));
    if let Some(body) = body {
        request = request.json(body);
    }
    send(request).await
}

/// A REST request without anything A owns in it: the ids replaced by fresh ones.
fn random_ids(path: &str, owner: &Tenant) -> String {
    let mut out = path.to_owned();
    for id in [
        &owner.form_id,
        &owner.response_id,
        &owner.file_response_id,
        &owner.file_id,
        &owner.webhook_id,
    ] {
        out = out.replace(id.as_str(), &uuid::Uuid::new_v4().to_string());
    }
    out
}

// ---------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn every_route_and_method_is_isolated_between_accounts() {
    matrix(async |flags: &[&str]| TestApp::spawn_with(flags).await).await;
}

/// The matrix, on the instance that `spawn` starts with the matrix's flags (and its
/// own: on a database with a read replica, for one, in `replicas.rs`). The instance is
/// handed back for the caller's own checks.
pub async fn matrix(spawn: impl AsyncFnOnce(&[&str]) -> TestApp) -> TestApp {
    let started = Instant::now();

    // The rows match the routes and methods exactly.
    let rows: BTreeSet<&str> = ROWS.iter().map(|(r, _, _)| *r).collect();
    assert_eq!(rows.len(), ROWS.len(), "duplicate rows");
    let rest_found = rest_routes();
    let grpc_found = grpc_methods();
    assert!(
        rest_found.len() >= 16,
        "parsed too few routes: {rest_found:?}"
    );
    assert!(
        grpc_found.len() >= 26,
        "found too few methods: {grpc_found:?}"
    );
    let dash_found = dashboard_routes();
    assert!(
        dash_found.len() >= 35,
        "parsed too few dashboard routes: {dash_found:?}"
    );
    let http_found: BTreeSet<String> = rest_found.union(&dash_found).cloned().collect();
    let (missing, stale) = row_gaps(&http_found, &grpc_found);
    assert!(
        missing.is_empty(),
        "routes/methods without an isolation row: {missing:?}"
    );
    assert!(stale.is_empty(), "rows matching no route/method: {stale:?}");

    let token = format!("op-{}", uuid::Uuid::new_v4().simple());
    let app = spawn(&[
        "--webhook-allow-private",
        "--session-hs256-secret",
        SESSION_SECRET,
        "--admin-token",
        &token,
        "--sign-in-attempts-per-minute",
        "1000",
    ])
    .await;
    let receiver = Receiver::start().await;
    let channel = grpc_channel(&app).await;
    let hosted = HostedFormsServiceClient::new(channel.clone());
    let a = tenant(&app, &hosted, &receiver, "a", Plan::Pro, Some("user-a")).await;
    let b = tenant(&app, &hosted, &receiver, "b", Plan::Pro, Some("user-b")).await;
    let e = tenant(&app, &hosted, &receiver, "e", Plan::Enterprise, None).await;
    let b_session = Cred::Session(b.session.clone().expect("B's session"));
    let a_cred = a.key_cred();
    // Who acts on A's objects: (label, credential, the tenant whose own objects it may mix in).
    let strangers: Vec<(&str, Cred, &Tenant)> = vec![
        ("B's key", b.key_cred(), &b),
        ("B's session", b_session.clone(), &b),
        ("E's (enterprise) key", e.key_cred(), &e),
    ];
    let mut m = Matrix::default();

    // -- Admin services first: had B been able to use them, everything after would lie.
    admin_rows(&mut m, &app, &channel, &token, &a, &b, &strangers).await;

    // -- REST, foreign ids.
    let sacrificial = |i: usize| {
        let app = &app;
        let a = &a;
        async move {
            let r = app
                .post(
                    &format!("/forms/{}/responses", a.form_id),
                    &a.key.key,
                    &json!({"answers": {a.text_field.clone(): format!("spare {i}")}}),
                )
                .await;
            r.ok(201)["response"]["id"].as_str().expect("id").to_owned()
        }
    };
    let a_form = &a.form_id;
    type PathsFor = fn(&Tenant, &Tenant) -> Vec<String>;
    let foreign_rest: Vec<(&'static str, Method, PathsFor, Option<Value>)> = vec![
        (
            "GET /api/v1/forms/{id}",
            Method::GET,
            |a, _| vec![format!("/forms/{}", a.form_id)],
            None,
        ),
        (
            "PUT /api/v1/forms/{id}",
            Method::PUT,
            |a, _| vec![format!("/forms/{}", a.form_id)],
            Some(json!({"title": "taken over", "status": "archived"})),
        ),
        (
            "DELETE /api/v1/forms/{id}",
            Method::DELETE,
            |a, _| vec![format!("/forms/{}", a.form_id)],
            None,
        ),
        (
            "GET /api/v1/forms/{form_id}/responses",
            Method::GET,
            |a, _| {
                vec![
                    format!("/forms/{}/responses", a.form_id),
                    format!("/forms/{}/responses?cursor=", a.form_id),
                ]
            },
            None,
        ),
        (
            "POST /api/v1/forms/{form_id}/responses",
            Method::POST,
            |a, _| vec![format!("/forms/{}/responses", a.form_id)],
            Some(json!({"answers": {a.text_field.clone(): "sent by a stranger"}})),
        ),
        (
            "GET /api/v1/forms/{form_id}/responses/export",
            Method::GET,
            |a, _| {
                vec![
                    format!("/forms/{}/responses/export", a.form_id),
                    format!("/forms/{}/responses/export?format=csv", a.form_id),
                ]
            },
            None,
        ),
        (
            "GET /api/v1/forms/{form_id}/responses/{id}",
            Method::GET,
            |a, me| {
                vec![
                    format!("/forms/{}/responses/{}", a.form_id, a.response_id),
                    format!("/forms/{}/responses/{}", a.form_id, a.file_response_id),
                    format!("/forms/{}/responses/{}", me.form_id, a.response_id),
                ]
            },
            None,
        ),
        (
            "DELETE /api/v1/forms/{form_id}/responses/{id}",
            Method::DELETE,
            |a, me| {
                vec![
                    format!("/forms/{}/responses/{}", a.form_id, a.response_id),
                    format!("/forms/{}/responses/{}", me.form_id, a.response_id),
                    format!("/forms/{}/responses/{}", me.form_id, a.file_response_id),
                ]
            },
            None,
        ),
        (
            "GET /api/v1/forms/{form_id}/responses/{id}/files/{file_id}",
            Method::GET,
            |a, me| {
                vec![
                    format!(
                        "/forms/{}/responses/{}/files/{}",
                        a.form_id, a.file_response_id, a.file_id
                    ),
                    format!(
                        "/forms/{}/responses/{}/files/{}",
                        me.form_id, a.file_response_id, a.file_id
                    ),
                    format!(
                        "/forms/{}/responses/{}/files/{}",
                        me.form_id, me.file_response_id, a.file_id
                    ),
                    format!(
                        "/forms/{}/responses/{}/files/{}",
                        a.form_id, a.file_response_id, me.file_id
                    ),
                ]
            },
            None,
        ),
        (
            "PUT /api/v1/forms/{form_id}/logo",
            Method::PUT,
            |a, _| vec![format!("/forms/{}/logo", a.form_id)],
            None,
        ),
        (
            "DELETE /api/v1/forms/{form_id}/logo",
            Method::DELETE,
            |a, _| vec![format!("/forms/{}/logo", a.form_id)],
            None,
        ),
        (
            "GET /api/v1/forms/{form_id}/summary",
            Method::GET,
            |a, _| {
                vec![
                    format!("/forms/{}/summary", a.form_id),
                    format!(
                        "/forms/{}/summary?since=2020-01-01T00:00:00Z&until=2020-01-02T00:00:00Z",
                        a.form_id
                    ),
                ]
            },
            None,
        ),
        (
            "GET /api/v1/forms/{form_id}/webhooks",
            Method::GET,
            |a, _| vec![format!("/forms/{}/webhooks", a.form_id)],
            None,
        ),
        (
            "POST /api/v1/forms/{form_id}/webhooks",
            Method::POST,
            |a, _| vec![format!("/forms/{}/webhooks", a.form_id)],
            Some(
                json!({"name": "spy", "url": "http://127.0.0.1:9/spy", "events": ["form.submitted"]}),
            ),
        ),
        (
            "DELETE /api/v1/forms/{form_id}/webhooks/{id}",
            Method::DELETE,
            |a, me| {
                vec![
                    format!("/forms/{}/webhooks/{}", a.form_id, a.webhook_id),
                    format!("/forms/{}/webhooks/{}", me.form_id, a.webhook_id),
                ]
            },
            None,
        ),
    ];
    for (row, method, paths_for, body) in &foreign_rest {
        for (who, cred, me) in &strangers {
            for path in paths_for(&a, me) {
                let reply = rest(&app, cred, method.clone(), &path, body.as_ref()).await;
                m.rest_not_found(row, who, &path, &reply);
                // The same request for ids that exist nowhere: the same message.
                if reply.status == 404 {
                    let unknown = random_ids(&path, &a);
                    let baseline = rest(&app, cred, method.clone(), &unknown, body.as_ref()).await;
                    m.expect(row, without_ids(&baseline.text) == without_ids(&reply.text), || {
                        format!(
                            "existence oracle: {path} as {who} answers {} but unknown ids answer {}",
                            reply.text, baseline.text
                        )
                    });
                }
            }
        }
    }
    // Positive controls, as A.
    let mut form_title = String::new();
    for (row, method, paths_for, _) in &foreign_rest {
        let is_delete = *method == Method::DELETE;
        let paths = paths_for(&a, &a);
        for path in paths {
            let (path, body, status) = match *row {
                "PUT /api/v1/forms/{id}" => {
                    (path, Some(json!({"description": "touched by A"})), 200)
                }
                "POST /api/v1/forms/{form_id}/responses" => (
                    path,
                    Some(json!({"answers": {a.text_field.clone(): "A again"}})),
                    201,
                ),
                "POST /api/v1/forms/{form_id}/webhooks" => (
                    path,
                    Some(
                        json!({"name": "A's second", "url": "http://127.0.0.1:9/a2", "events": ["form.updated"]}),
                    ),
                    201,
                ),
                // An image, not JSON: `theme_rows`.
                "PUT /api/v1/forms/{form_id}/logo" => continue,
                _ if is_delete => continue,
                _ => (path, None, 200),
            };
            let reply = rest(&app, &a_cred, method.clone(), &path, body.as_ref()).await;
            m.rest_status(row, "A", &path, &reply, status);
            if *row == "GET /api/v1/forms/{id}" {
                form_title = reply.body["data"]["form"]["title"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
            }
            if row.ends_with("/files/{file_id}") {
                let bytes = a_cred
                    .rest(app.request(Method::GET, &path))
                    .send()
                    .await
                    .expect("download")
                    .bytes()
                    .await
                    .expect("file bytes");
                m.expect(row, bytes.as_ref() == crate::uploads::PNG, || {
                    "A's download is not A's file".to_owned()
                });
            }
        }
    }
    let path = format!("/forms/{a_form}/responses/export");
    let own = rest(&app, &a_cred, Method::GET, &path, None).await;
    m.expect(
        "GET /api/v1/forms/{form_id}/responses/export",
        own.text.contains(&a.response_id) && !own.text.contains(&b.response_id),
        || format!("A's export is not A's responses only: {}", own.text),
    );
    // Deletes by A, on objects made for it.
    let spare_form = app.create_form(&a.key.key, &upload_form("spare")).await;
    let path = format!("/forms/{}", spare_form["id"].as_str().expect("id"));
    let reply = rest(&app, &a_cred, Method::DELETE, &path, None).await;
    m.rest_status("DELETE /api/v1/forms/{id}", "A", &path, &reply, 204);
    let spare = sacrificial(1).await;
    let path = format!("/forms/{a_form}/responses/{spare}");
    let reply = rest(&app, &a_cred, Method::DELETE, &path, None).await;
    m.rest_status(
        "DELETE /api/v1/forms/{form_id}/responses/{id}",
        "A",
        &path,
        &reply,
        204,
    );
    let hooks = app
        .get(&format!("/forms/{a_form}/webhooks"), &a.key.key)
        .await;
    let second = hooks.ok(200)["webhooks"]
        .as_array()
        .expect("webhooks")
        .iter()
        .find(|w| w["name"] == "A's second")
        .and_then(|w| w["id"].as_str())
        .expect("A's second webhook")
        .to_owned();
    let path = format!("/forms/{a_form}/webhooks/{second}");
    let reply = rest(&app, &a_cred, Method::DELETE, &path, None).await;
    m.rest_status(
        "DELETE /api/v1/forms/{form_id}/webhooks/{id}",
        "A",
        &path,
        &reply,
        204,
    );

    // -- REST, no foreign id: B sees and makes only its own.
    for (who, cred, me) in &strangers {
        let row = "POST /api/v1/forms";
        let made = rest(
            &app,
            cred,
            Method::POST,
            "/forms",
            Some(&json!({"title": format!("by {who}")})),
        )
        .await;
        m.rest_status(row, who, "/forms", &made, 201);
        let made_id = made.body["data"]["form"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let by_a = app.get(&format!("/forms/{made_id}"), &a.key.key).await;
        m.expect(row, by_a.status == 404, || {
            format!("A reads the form {who} made: {}", by_a.text)
        });
        let mine = rest(&app, cred, Method::GET, &format!("/forms/{made_id}"), None).await;
        m.rest_status(row, who, "own new form", &mine, 200);

        let row = "GET /api/v1/forms";
        let list = rest(&app, cred, Method::GET, "/forms?per_page=100", None).await;
        m.rest_status(row, who, "/forms", &list, 200);
        let ids: Vec<&str> = list.body["data"]["forms"]
            .as_array()
            .map(|f| f.iter().filter_map(|f| f["id"].as_str()).collect())
            .unwrap_or_default();
        m.expect(
            row,
            !ids.contains(&a.form_id.as_str()) && !list.text.contains(&a.short_id),
            || {
                format!(
                    "ISOLATION BUG: {who}'s form list shows A's form: {}",
                    list.text
                )
            },
        );
        m.expect(
            row,
            ids.contains(&me.form_id.as_str()) && ids.contains(&made_id.as_str()),
            || format!("{who}'s form list lacks its own forms: {}", list.text),
        );
        let searched = rest(
            &app,
            cred,
            Method::GET,
            "/forms?search=a&status=published",
            None,
        )
        .await;
        m.expect(row, !searched.text.contains(&a.form_id), || {
            format!(
                "ISOLATION BUG: {who}'s search shows A's form: {}",
                searched.text
            )
        });

        // Lists under B's own form: nothing of A's.
        for path in [
            format!("/forms/{}/responses?per_page=100", me.form_id),
            format!("/forms/{}/responses?cursor=", me.form_id),
            format!("/forms/{}/webhooks", me.form_id),
        ] {
            let row = if path.contains("webhooks") {
                "GET /api/v1/forms/{form_id}/webhooks"
            } else {
                "GET /api/v1/forms/{form_id}/responses"
            };
            let list = rest(&app, cred, Method::GET, &path, None).await;
            m.rest_status(row, who, &path, &list, 200);
            let leaked = [
                &a.form_id,
                &a.response_id,
                &a.file_response_id,
                &a.file_id,
                &a.webhook_id,
            ]
            .into_iter()
            .any(|id| list.text.contains(id.as_str()))
                || list.text.contains("a by ");
            m.expect(row, !leaked, || {
                format!(
                    "ISOLATION BUG: {who}'s list {path} shows A's objects: {}",
                    list.text
                )
            });
        }

        let row = "GET /api/v1/usage";
        let usage = rest(&app, cred, Method::GET, "/usage", None).await;
        m.rest_status(row, who, "/usage", &usage, 200);
        let key_id = usage.body["data"]["key_id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let expected_key = match cred {
            Cred::Key(_) => Some(me.key.key_id.to_string()),
            Cred::Session(_) => None,
        };
        m.expect(
            row,
            key_id != a.key.key_id.to_string() && !key_id.is_empty(),
            || format!("ISOLATION BUG: {who}'s usage is A's key's: {}", usage.text),
        );
        if let Some(expected) = expected_key {
            m.expect(row, key_id == expected, || {
                format!("{who}'s usage is not its key's: {}", usage.text)
            });
        }
    }
    let usage = app.get("/usage", &a.key.key).await;
    m.rest_status("GET /api/v1/usage", "A", "/usage", &usage, 200);
    m.expect(
        "GET /api/v1/usage",
        usage.body["data"]["key_id"] == a.key.key_id.to_string(),
        || usage.text.clone(),
    );
    // A fresh key's usage counts its own request only, not the hundreds above.
    let fresh = app.key(PRO, READ).await;
    let usage = app.get("/usage", &fresh).await;
    m.expect(
        "GET /api/v1/usage",
        usage.body["data"]["total_requests"] == 1,
        || {
            format!(
                "ISOLATION BUG: a fresh key's usage counts others' requests: {}",
                usage.text
            )
        },
    );

    // -- Hosted pages (public).
    let origin = app.http_base.trim_end_matches("/api/v1").to_owned();
    let client = http_client();

    // -- Probes, the API's description and the hosted pages' script (public, no data).
    for row in [
        "GET /healthz",
        "GET /readyz",
        "GET /api/v1/openapi.json",
        "GET /api/v1/docs",
        "GET /api/v1/docs/{*file}",
        "GET /f/assets/pow.js",
        "GET /f/assets/conditions.js",
        "GET /f/assets/keys.js",
        "GET /f/assets/steps.js",
        "GET /f/assets/back.js",
        "GET /favicon.ico",
    ] {
        let path = row
            .trim_start_matches("GET ")
            .replace("{*file}", "index.html");
        let reply = client
            .get(format!("{origin}{path}"))
            .send()
            .await
            .expect("probe");
        let status = reply.status().as_u16();
        let body = reply.text().await.unwrap_or_default();
        m.expect(row, status == 200 && !body.contains(&a.form_id), || {
            format!("{path}: {status} {body}")
        });
    }
    let page = client
        .get(format!("{origin}/f/{}", a.short_id))
        .send()
        .await
        .expect("page");
    m.expect("GET /f/{short_id}", page.status() == 200, || {
        format!("A's published page: {}", page.status())
    });
    for (who, cred, _) in &strangers {
        let draft = cred
            .rest(client.get(format!("{origin}/f/{}", a.draft_short_id)))
            .send()
            .await
            .expect("draft page");
        m.expect("GET /f/{short_id}", draft.status() == 404, || {
            format!(
                "ISOLATION BUG: A's draft page shown to {who}: {}",
                draft.status()
            )
        });
    }
    let before_a = response_count(&app, &a).await;
    let before_b = response_count(&app, &b).await;
    let page = client
        .get(format!("{origin}/f/{}", a.short_id))
        .send()
        .await
        .expect("page");
    let cookie = page
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("csrf cookie")
        .to_owned();
    let html = page.text().await.expect("html");
    let start = html.find("name=\"_token\" value=\"").expect("token") + 21;
    let page_token = html[start..start + html[start..].find('"').expect("end")].to_owned();
    let body = serde_urlencoded::to_string([
        ("_token", page_token.as_str()),
        (a.text_field.as_str(), "sent with B's credentials"),
    ])
    .expect("form body");
    let posted = client
        .post(format!("{origin}/f/{}", a.short_id))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("user-agent", UA)
        .header("x-api-key", &b.key.key)
        .header(
            "cookie",
            format!(
                "{cookie}; session={}",
                b.session.as_deref().unwrap_or_default()
            ),
        )
        .body(body)
        .send()
        .await
        .expect("POST page");
    let posted_status = posted.status().as_u16();
    m.expect("POST /f/{short_id}", posted_status < 400, || {
        format!("the submission to A's page failed: {posted_status}")
    });
    m.expect(
        "POST /f/{short_id}",
        response_count(&app, &a).await == before_a + 1,
        || "the page submission did not land in A's form".to_owned(),
    );
    m.expect(
        "POST /f/{short_id}",
        response_count(&app, &b).await == before_b,
        || "ISOLATION BUG: a submission to A's page landed in B's form".to_owned(),
    );

    endpoint_rows(&mut m, &app, &channel, &origin, &a, &b, &strangers).await;

    // -- gRPC.
    grpc_rows(&mut m, &app, &channel, &hosted, &a, &b, &strangers).await;
    theme_rows(&mut m, &app, &channel, &origin, &a, &strangers).await;
    rights::erasure_rows(&mut m, &app, &channel, &a, &b, &strangers).await;

    // -- The dashboard: its pages and posts, and its gRPC services.
    dashboard_rows(&mut m, &app, &a, &b).await;
    owner_rows(&mut m, &app, &channel, &a, &b).await;
    sessions_rows(&mut m, &app, &channel, &token, &a, &b, &strangers).await;
    audit::audit_rows(&mut m, &app, &channel, &token, (&a, &b), &strangers).await;
    members::member_rows(&mut m, &app, &channel, (&a, &b)).await;
    archive::archive_rows(&mut m, &channel, &token, &a, &strangers).await;

    // -- A's objects survived every attempt.
    let form = app.get(&format!("/forms/{a_form}"), &a.key.key).await;
    let form = form.ok(200)["form"].clone();
    assert_eq!(
        form["title"],
        form_title.as_str(),
        "A's form was changed by a stranger"
    );
    assert_eq!(
        form["status"], "published",
        "A's form was changed by a stranger"
    );
    for id in [&a.response_id, &a.file_response_id] {
        app.get(&format!("/forms/{a_form}/responses/{id}"), &a.key.key)
            .await
            .ok(200);
    }
    let hooks = app
        .get(&format!("/forms/{a_form}/webhooks"), &a.key.key)
        .await;
    let hooks = hooks.ok(200)["webhooks"]
        .as_array()
        .expect("webhooks")
        .clone();
    assert!(
        hooks.iter().any(|w| w["id"] == a.webhook_id.as_str()),
        "A's webhook was deleted by a stranger"
    );
    assert!(
        !hooks.iter().any(|w| w["name"] == "spy"),
        "a stranger added a webhook to A's form"
    );
    assert!(
        !receiver.hits().iter().any(|h| h.path == "/spy"),
        "a stranger's webhook got A's events"
    );

    for (row, kind, note) in ROWS {
        eprintln!(
            "isolation: {row:60} {kind:?} ({} cells): {note}",
            m.covered.get(row).copied().unwrap_or(0)
        );
    }
    eprintln!(
        "isolation: {} REST routes, {} dashboard routes, {} gRPC methods, {} matrix cells checked in {:?}",
        rest_found.len(),
        dash_found.len(),
        grpc_found.len(),
        m.cells,
        started.elapsed()
    );
    assert!(
        m.failures.is_empty(),
        "{} isolation failures:\n{}",
        m.failures.len(),
        m.failures.join("\n")
    );
    // Every row was checked.
    let unchecked: Vec<_> = ROWS
        .iter()
        .map(|(r, _, _)| *r)
        .filter(|r| !m.covered.contains_key(r))
        .collect();
    assert!(unchecked.is_empty(), "rows without a check: {unchecked:?}");
    // Every foreign-id cell was refused to a stranger and allowed to A; every own-only
    // cell was allowed.
    for (row, kind, _) in ROWS {
        match kind {
            Kind::Foreign => assert!(
                m.refused.contains(row) && m.allowed.contains(row),
                "{row}: needs a refused stranger and an allowed owner"
            ),
            Kind::OwnOnly => assert!(m.allowed.contains(row), "{row}: no allowed call"),
            Kind::Filtered => assert!(
                m.refused.contains(row) && m.allowed.contains(row),
                "{row}: needs a stranger's ids left out and the owner's answered"
            ),
            Kind::NotTenant | Kind::Public => {}
        }
    }
    app
}

async fn response_count(app: &TestApp, t: &Tenant) -> i64 {
    let reply = app
        .get(&format!("/forms/{}/responses", t.form_id), &t.key.key)
        .await;
    reply.ok(200)["pagination"]["total"]
        .as_i64()
        .expect("total")
}

// ---------------------------------------------------------------------------------------
// gRPC rows
// ---------------------------------------------------------------------------------------

/// Runs `call` as every stranger (NOT_FOUND expected) and then as A (success expected).
async fn grpc_foreign<T, F, Fut>(
    m: &mut Matrix,
    row: &'static str,
    a: &Tenant,
    strangers: &[(&str, Cred, &Tenant)],
    positive: bool,
    call: F,
) where
    T: std::fmt::Debug,
    F: Fn(Cred, &Tenant, &Tenant) -> Fut,
    Fut: Future<Output = (String, Result<tonic::Response<T>, Status>)>,
{
    for (who, cred, me) in strangers {
        let (what, result) = call(cred.clone(), a, me).await;
        m.grpc_not_found(row, who, &what, &result);
    }
    if positive {
        let (what, result) = call(a.key_cred(), a, a).await;
        m.grpc_ok(row, &what, result);
    }
}

/// An export's stream read whole, as text (or the status it failed with).
async fn exported(
    result: Result<tonic::Response<tonic::Streaming<pb::ExportResponsesResponse>>, Status>,
) -> Result<tonic::Response<String>, Status> {
    let mut stream = result?.into_inner();
    let mut bytes = Vec::new();
    while let Some(message) = stream.message().await? {
        bytes.extend_from_slice(&message.data);
    }
    Ok(tonic::Response::new(
        String::from_utf8_lossy(&bytes).into_owned(),
    ))
}

#[allow(clippy::too_many_lines)]
async fn grpc_rows(
    m: &mut Matrix,
    app: &TestApp,
    channel: &Channel,
    hosted: &HostedFormsServiceClient<Channel>,
    a: &Tenant,
    b: &Tenant,
    strangers: &[(&str, Cred, &Tenant)],
) {
    let forms = FormsServiceClient::new(channel.clone());
    let responses = ResponsesServiceClient::new(channel.clone());
    let webhooks = WebhooksServiceClient::new(channel.clone());
    let usage = UsageServiceClient::new(channel.clone());

    grpc_foreign(
        m,
        "forms.v1.FormsService/GetForm",
        a,
        strangers,
        true,
        |cred, a, _| {
            let mut c = forms.clone();
            let id = a.form_id.clone();
            async move {
                (
                    format!("form {id}"),
                    c.get_form(cred.grpc(pb::GetFormRequest { id })).await,
                )
            }
        },
    )
    .await;
    grpc_foreign(
        m,
        "forms.v1.FormsService/UpdateForm",
        a,
        strangers,
        true,
        |cred, a, me| {
            let mut c = forms.clone();
            let id = a.form_id.clone();
            let owner = me.name == a.name;
            async move {
                let message = pb::UpdateFormRequest {
                    id: id.clone(),
                    form: Some(pb::Form {
                        title: "taken over".into(),
                        description: Some("touched by A over gRPC".into()),
                        ..Default::default()
                    }),
                    update_mask: Some(prost_types::FieldMask {
                        paths: vec![if owner { "description" } else { "title" }.into()],
                    }),
                };
                (
                    format!("form {id}"),
                    c.update_form(cred.grpc(message)).await,
                )
            }
        },
    )
    .await;
    grpc_foreign(
        m,
        "forms.v1.FormsService/DeleteForm",
        a,
        strangers,
        false,
        |cred, a, _| {
            let mut c = forms.clone();
            let id = a.form_id.clone();
            async move {
                (
                    format!("form {id}"),
                    c.delete_form(cred.grpc(pb::DeleteFormRequest { id })).await,
                )
            }
        },
    )
    .await;
    let spare = app.create_form(&a.key.key, &upload_form("spare")).await;
    let id = spare["id"].as_str().expect("id").to_owned();
    let result = forms
        .clone()
        .delete_form(a.key_cred().grpc(pb::DeleteFormRequest { id }))
        .await;
    m.grpc_ok("forms.v1.FormsService/DeleteForm", "A's spare form", result);

    grpc_foreign(
        m,
        "forms.v1.ResponsesService/ListResponses",
        a,
        strangers,
        true,
        |cred, a, _| {
            let mut c = responses.clone();
            let form_id = a.form_id.clone();
            async move {
                let message = pb::ListResponsesRequest {
                    form_id: form_id.clone(),
                    ..Default::default()
                };
                (
                    format!("form {form_id}"),
                    c.list_responses(cred.grpc(message)).await,
                )
            }
        },
    )
    .await;
    grpc_foreign(
        m,
        "forms.v1.ResponsesService/ListResponses",
        a,
        strangers,
        false,
        |cred, a, _| {
            let mut c = responses.clone();
            let form_id = a.form_id.clone();
            async move {
                let message = pb::ListResponsesRequest {
                    form_id: form_id.clone(),
                    cursor: Some(String::new()),
                    ..Default::default()
                };
                (
                    format!("form {form_id} (cursor mode)"),
                    c.list_responses(cred.grpc(message)).await,
                )
            }
        },
    )
    .await;
    for format in [pb::ExportFormat::Ndjson, pb::ExportFormat::Csv] {
        grpc_foreign(
            m,
            "forms.v1.ResponsesService/ExportResponses",
            a,
            strangers,
            true,
            |cred, a, _| {
                let mut c = responses.clone();
                let form_id = a.form_id.clone();
                async move {
                    let message = pb::ExportResponsesRequest {
                        form_id: form_id.clone(),
                        format: format.into(),
                        ..Default::default()
                    };
                    let what = format!("form {form_id} ({format:?})");
                    (
                        what,
                        exported(c.export_responses(cred.grpc(message)).await).await,
                    )
                }
            },
        )
        .await;
    }
    let message = pb::ExportResponsesRequest {
        form_id: a.form_id.clone(),
        ..Default::default()
    };
    let own = exported(
        responses
            .clone()
            .export_responses(a.key_cred().grpc(message))
            .await,
    )
    .await;
    let text = own.map(tonic::Response::into_inner).unwrap_or_default();
    m.expect(
        "forms.v1.ResponsesService/ExportResponses",
        text.contains(&a.response_id) && !text.contains(&b.response_id),
        || format!("A's export is not A's responses only: {text}"),
    );
    grpc_foreign(
        m,
        "forms.v1.ResponsesService/GetFormSummary",
        a,
        strangers,
        true,
        |cred, a, _| {
            let mut c = responses.clone();
            let form_id = a.form_id.clone();
            async move {
                let message = pb::GetFormSummaryRequest {
                    form_id: form_id.clone(),
                    ..Default::default()
                };
                (
                    format!("form {form_id}"),
                    c.get_form_summary(cred.grpc(message)).await,
                )
            }
        },
    )
    .await;
    let own = responses
        .clone()
        .get_form_summary(a.key_cred().grpc(pb::GetFormSummaryRequest {
            form_id: a.form_id.clone(),
            ..Default::default()
        }))
        .await;
    let completed = own
        .ok()
        .and_then(|r| r.into_inner().summary)
        .and_then(|s| s.counts)
        .map(|c| c.completed);
    let listed = count(
        app,
        "SELECT count(*) FROM responses WHERE form_id = $1",
        &a.form_id,
    )
    .await;
    m.expect(
        "forms.v1.ResponsesService/GetFormSummary",
        completed == Some(listed),
        || format!("A's summary counts {completed:?}, A's form holds {listed} responses"),
    );
    for variant in 0..3 {
        grpc_foreign(
            m,
            "forms.v1.ResponsesService/GetResponse",
            a,
            strangers,
            true,
            |cred, a, me| {
                let mut c = responses.clone();
                let (form_id, id) = match variant {
                    0 => (a.form_id.clone(), a.response_id.clone()),
                    1 => (a.form_id.clone(), a.file_response_id.clone()),
                    _ => (me.form_id.clone(), a.response_id.clone()),
                };
                async move {
                    let message = pb::GetResponseRequest {
                        form_id: form_id.clone(),
                        id: id.clone(),
                    };
                    (
                        format!("form {form_id} response {id}"),
                        c.get_response(cred.grpc(message)).await,
                    )
                }
            },
        )
        .await;
    }
    grpc_foreign(
        m,
        "forms.v1.ResponsesService/CreateResponse",
        a,
        strangers,
        true,
        |cred, a, _| {
            let mut c = responses.clone();
            let form_id = a.form_id.clone();
            let answers = text_answers(&a.text_field, "A over gRPC");
            async move {
                let message = pb::CreateResponseRequest {
                    form_id: form_id.clone(),
                    answers: Some(answers),
                    metadata: None,
                };
                (
                    format!("form {form_id}"),
                    c.create_response(cred.grpc(message)).await,
                )
            }
        },
    )
    .await;
    for variant in 0..2 {
        grpc_foreign(
            m,
            "forms.v1.ResponsesService/DeleteResponse",
            a,
            strangers,
            false,
            |cred, a, me| {
                let mut c = responses.clone();
                let (form_id, id) = match variant {
                    0 => (a.form_id.clone(), a.response_id.clone()),
                    _ => (me.form_id.clone(), a.file_response_id.clone()),
                };
                async move {
                    let message = pb::DeleteResponseRequest {
                        form_id: form_id.clone(),
                        id: id.clone(),
                    };
                    (
                        format!("form {form_id} response {id}"),
                        c.delete_response(cred.grpc(message)).await,
                    )
                }
            },
        )
        .await;
    }
    let spare = app
        .post(
            &format!("/forms/{}/responses", a.form_id),
            &a.key.key,
            &json!({"answers": {a.text_field.clone(): "spare for gRPC"}}),
        )
        .await;
    let id = spare.ok(201)["response"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let result = responses
        .clone()
        .delete_response(a.key_cred().grpc(pb::DeleteResponseRequest {
            form_id: a.form_id.clone(),
            id,
        }))
        .await;
    m.grpc_ok(
        "forms.v1.ResponsesService/DeleteResponse",
        "A's spare response",
        result,
    );
    for variant in 0..3 {
        grpc_foreign(
            m,
            "forms.v1.ResponsesService/GetResponseFile",
            a,
            strangers,
            true,
            |cred, a, me| {
                let mut c = responses.clone();
                let (form_id, response_id) = match variant {
                    0 => (a.form_id.clone(), a.file_response_id.clone()),
                    1 => (me.form_id.clone(), a.file_response_id.clone()),
                    _ => (me.form_id.clone(), me.file_response_id.clone()),
                };
                let file_id = a.file_id.clone();
                async move {
                    let message = pb::GetResponseFileRequest {
                        form_id: form_id.clone(),
                        response_id: response_id.clone(),
                        file_id: file_id.clone(),
                    };
                    (
                        format!("form {form_id} response {response_id} file {file_id}"),
                        c.get_response_file(cred.grpc(message)).await,
                    )
                }
            },
        )
        .await;
    }
    grpc_foreign(
        m,
        "forms.v1.WebhooksService/ListWebhooks",
        a,
        strangers,
        true,
        |cred, a, _| {
            let mut c = webhooks.clone();
            let form_id = a.form_id.clone();
            async move {
                (
                    format!("form {form_id}"),
                    c.list_webhooks(cred.grpc(pb::ListWebhooksRequest {
                        form_id: form_id.clone(),
                    }))
                    .await,
                )
            }
        },
    )
    .await;
    grpc_foreign(
        m,
        "forms.v1.WebhooksService/CreateWebhook",
        a,
        strangers,
        false,
        |cred, a, _| {
            let mut c = webhooks.clone();
            let form_id = a.form_id.clone();
            async move {
                let message = pb::CreateWebhookRequest {
                    form_id: form_id.clone(),
                    name: "spy".into(),
                    url: "http://127.0.0.1:9/spy".into(),
                    events: vec!["form.submitted".into()],
                };
                (
                    format!("form {form_id}"),
                    c.create_webhook(cred.grpc(message)).await,
                )
            }
        },
    )
    .await;
    let made = webhooks
        .clone()
        .create_webhook(a.key_cred().grpc(pb::CreateWebhookRequest {
            form_id: a.form_id.clone(),
            name: "A's spare".into(),
            url: "http://127.0.0.1:9/a3".into(),
            events: vec!["form.updated".into()],
        }))
        .await;
    let spare_hook = m
        .grpc_ok("forms.v1.WebhooksService/CreateWebhook", "A's form", made)
        .and_then(|r| r.webhook)
        .map(|w| w.id)
        .unwrap_or_default();
    for variant in 0..2 {
        grpc_foreign(
            m,
            "forms.v1.WebhooksService/DeleteWebhook",
            a,
            strangers,
            false,
            |cred, a, me| {
                let mut c = webhooks.clone();
                let form_id = if variant == 0 {
                    a.form_id.clone()
                } else {
                    me.form_id.clone()
                };
                let id = a.webhook_id.clone();
                async move {
                    let message = pb::DeleteWebhookRequest {
                        form_id: form_id.clone(),
                        id: id.clone(),
                    };
                    (
                        format!("form {form_id} webhook {id}"),
                        c.delete_webhook(cred.grpc(message)).await,
                    )
                }
            },
        )
        .await;
    }
    let result = webhooks
        .clone()
        .delete_webhook(a.key_cred().grpc(pb::DeleteWebhookRequest {
            form_id: a.form_id.clone(),
            id: spare_hook,
        }))
        .await;
    m.grpc_ok(
        "forms.v1.WebhooksService/DeleteWebhook",
        "A's spare webhook",
        result,
    );

    // No foreign id: B sees and makes only its own.
    for (who, cred, me) in strangers {
        let row = "forms.v1.FormsService/CreateForm";
        let made = forms
            .clone()
            .create_form(cred.grpc(pb::CreateFormRequest {
                title: format!("gRPC by {who}"),
                ..Default::default()
            }))
            .await;
        let made_id = m
            .grpc_ok(row, "a new form", made)
            .and_then(|r| r.form)
            .map(|f| f.id)
            .unwrap_or_default();
        let by_a = forms
            .clone()
            .get_form(a.key_cred().grpc(pb::GetFormRequest {
                id: made_id.clone(),
            }))
            .await;
        m.grpc_not_found(row, "A", &format!("the form {who} made"), &by_a);

        let row = "forms.v1.FormsService/ListForms";
        let list = forms
            .clone()
            .list_forms(cred.grpc(pb::ListFormsRequest {
                per_page: Some(100),
                ..Default::default()
            }))
            .await;
        let ids: Vec<String> = m
            .grpc_ok(row, "the form list", list)
            .map(|l| l.forms.into_iter().map(|f| f.id).collect())
            .unwrap_or_default();
        m.expect(row, !ids.contains(&a.form_id), || {
            format!("ISOLATION BUG: {who}'s ListForms shows A's form")
        });
        m.expect(
            row,
            ids.contains(&me.form_id) && ids.contains(&made_id),
            || format!("{who}'s ListForms lacks its own forms"),
        );

        let row = "forms.v1.ResponsesService/ListResponses";
        let list = responses
            .clone()
            .list_responses(cred.grpc(pb::ListResponsesRequest {
                form_id: me.form_id.clone(),
                per_page: Some(100),
                ..Default::default()
            }))
            .await;
        let listed = m
            .grpc_ok(row, "own responses", list)
            .map(|l| format!("{l:?}"))
            .unwrap_or_default();
        m.expect(
            row,
            !listed.contains(&a.response_id) && !listed.contains(&a.file_id),
            || format!("ISOLATION BUG: {who}'s ListResponses shows A's objects"),
        );
        let row = "forms.v1.WebhooksService/ListWebhooks";
        let list = webhooks
            .clone()
            .list_webhooks(cred.grpc(pb::ListWebhooksRequest {
                form_id: me.form_id.clone(),
            }))
            .await;
        let listed = m
            .grpc_ok(row, "own webhooks", list)
            .map(|l| format!("{l:?}"))
            .unwrap_or_default();
        m.expect(row, !listed.contains(&a.webhook_id), || {
            format!("ISOLATION BUG: {who}'s ListWebhooks shows A's webhook")
        });

        let row = "forms.v1.UsageService/GetUsage";
        let got = usage
            .clone()
            .get_usage(cred.grpc(pb::GetUsageRequest { days: Some(7) }))
            .await;
        let key_id = m
            .grpc_ok(row, "usage", got)
            .and_then(|u| u.usage)
            .map(|u| u.key_id)
            .unwrap_or_default();
        m.expect(
            row,
            !key_id.is_empty() && key_id != a.key.key_id.to_string(),
            || format!("ISOLATION BUG: {who}'s usage is A's key's"),
        );
        if matches!(cred, Cred::Key(_)) {
            m.expect(row, key_id == me.key.key_id.to_string(), || {
                format!("{who}'s usage is not its key's")
            });
        }
    }
    let got = usage
        .clone()
        .get_usage(a.key_cred().grpc(pb::GetUsageRequest { days: Some(7) }))
        .await;
    let key_id = m
        .grpc_ok("forms.v1.UsageService/GetUsage", "A's usage", got)
        .and_then(|u| u.usage)
        .map(|u| u.key_id);
    m.expect(
        "forms.v1.UsageService/GetUsage",
        key_id == Some(a.key.key_id.to_string()),
        || "A's usage is not A's key's".to_owned(),
    );

    // Hosted (public): a draft stays hidden whatever the credentials; a submission with
    // B's credentials is A's form's.
    let mut h = hosted.clone();
    let page = h
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: a.short_id.clone(),
            csrf_nonce: NONCE.into(),
            ..Default::default()
        })
        .await;
    m.grpc_ok(
        "forms.v1.HostedFormsService/GetHostedForm",
        "A's published form",
        page,
    );
    for (who, cred, _) in strangers {
        let draft = h
            .get_hosted_form(cred.grpc(pb::GetHostedFormRequest {
                short_id: a.draft_short_id.clone(),
                csrf_nonce: NONCE.into(),
                ..Default::default()
            }))
            .await;
        m.grpc_not_found(
            "forms.v1.HostedFormsService/GetHostedForm",
            who,
            "A's draft",
            &draft,
        );
    }
    let token = h
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: a.short_id.clone(),
            csrf_nonce: NONCE.into(),
            ..Default::default()
        })
        .await
        .map(|page| page.into_inner().start_token)
        .unwrap_or_default();
    let admit = |short_id: &str| pb::AdmitHostedSubmissionRequest {
        short_id: short_id.to_owned(),
        start_token: token.clone(),
        csrf_nonce: NONCE.into(),
    };
    let admitted = h.admit_hosted_submission(admit(&a.short_id)).await;
    m.grpc_ok(
        "forms.v1.HostedFormsService/AdmitHostedSubmission",
        "A's published form",
        admitted,
    );
    for (who, cred, _) in strangers {
        let draft = h
            .admit_hosted_submission(cred.grpc(admit(&a.draft_short_id)))
            .await;
        m.grpc_not_found(
            "forms.v1.HostedFormsService/AdmitHostedSubmission",
            who,
            "A's draft",
            &draft,
        );
    }
    let (before_a, before_b) = (response_count(app, a).await, response_count(app, b).await);
    let id = hosted_submit(
        hosted,
        &a.short_id,
        (&a.text_field, "gRPC with B's key"),
        Some(&a.photo_field),
        Some(&b.key_cred()),
    )
    .await;
    let row = "forms.v1.HostedFormsService/SubmitHostedForm";
    m.expect(row, response_count(app, a).await == before_a + 1, || {
        "the submission did not land in A's form".to_owned()
    });
    m.expect(row, response_count(app, b).await == before_b, || {
        "ISOLATION BUG: a submission to A's form landed in B's".to_owned()
    });
    let got = app
        .get(&format!("/forms/{}/responses/{id}", b.form_id), &b.key.key)
        .await;
    m.expect(row, got.status == 404, || {
        format!(
            "ISOLATION BUG: B reads the response it submitted to A's form: {}",
            got.text
        )
    });

    // Gateway: always an error, the one asked for; nothing of anyone's.
    let mut gateway = GatewayServiceClient::new(channel.clone());
    for (who, cred, _) in strangers {
        let message = pb::RejectRequestRequest {
            message: format!("no route for GET /forms/{}", a.form_id),
            error_reason: pb::ErrorReason::NotFound as i32,
            ..Default::default()
        };
        let result = gateway.reject_request(cred.grpc(message)).await;
        m.grpc_not_found(
            "forms.v1.GatewayService/RejectRequest",
            who,
            "a rejection",
            &result,
        );
    }
}

// ---------------------------------------------------------------------------------------
// Admin rows: operator token only
// ---------------------------------------------------------------------------------------

fn admin_denied<T: std::fmt::Debug>(result: &Result<tonic::Response<T>, Status>) -> bool {
    matches!(result, Err(s) if s.code() == Code::PermissionDenied
        && s.get_details_error_info().map(|i| i.reason).as_deref() == Some("ADMIN_DENIED"))
}

/// Runs one admin call as every stranger (with its credential as the API key, and its key
/// as the operator token): ADMIN_DENIED; and with the operator token: let through (a
/// domain answer, never ADMIN_DENIED).
async fn admin_row<T, F, Fut>(
    m: &mut Matrix,
    row: &'static str,
    token: &str,
    strangers: &[(&str, Cred, &Tenant)],
    call: F,
) where
    T: std::fmt::Debug,
    F: Fn(tonic::metadata::MetadataMap) -> Fut,
    Fut: Future<Output = Result<tonic::Response<T>, Status>>,
{
    for (who, cred, _) in strangers {
        let mut as_api = cred.grpc(()).metadata().clone();
        let result = call(as_api.clone()).await;
        m.expect(row, admin_denied(&result), || {
            format!("ISOLATION BUG: {who}'s credential passes the operator check: {result:?}")
        });
        if let Cred::Key(key) = cred {
            as_api.insert("x-admin-token", key.parse().expect("metadata"));
            let result = call(as_api).await;
            m.expect(row, admin_denied(&result), || {
                format!("ISOLATION BUG: {who}'s key accepted as operator token: {result:?}")
            });
        }
    }
    let mut operator = tonic::metadata::MetadataMap::new();
    operator.insert("x-admin-token", token.parse().expect("metadata"));
    let result = call(operator).await;
    m.expect(
        row,
        !admin_denied(&result) && !matches!(&result, Err(s) if s.code() == Code::Unauthenticated),
        || format!("positive control: the operator token is refused: {result:?}"),
    );
}

fn with_md<T>(message: T, md: tonic::metadata::MetadataMap) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    *request.metadata_mut() = md;
    request
}

async fn admin_rows(
    m: &mut Matrix,
    app: &TestApp,
    channel: &Channel,
    token: &str,
    a: &Tenant,
    b: &Tenant,
    strangers: &[(&str, Cred, &Tenant)],
) {
    let admin = AdminServiceClient::new(channel.clone());
    let hooks = WebhookAdminServiceClient::new(channel.clone());
    // The operator's positive controls act on an account of their own, not on A.
    let ops = format!("ops-{}", uuid::Uuid::new_v4().simple());
    let ops_key = app.key_for(&ops, PRO, READ).await;
    let ops_ref = &ops;
    let a_name = a.key.account.clone();

    admin_row(
        m,
        "forms.v1.AdminService/GetAccount",
        token,
        strangers,
        |md| {
            let mut c = admin.clone();
            let name = a_name.clone();
            async move {
                c.get_account(with_md(pb::GetAccountRequest { name }, md))
                    .await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.AdminService/UpdateAccount",
        token,
        strangers,
        |md| {
            let mut c = admin.clone();
            let is_operator = md.contains_key("x-admin-token") && !md.contains_key("x-api-key");
            let name = if is_operator {
                ops_ref.clone()
            } else {
                a_name.clone()
            };
            async move {
                let message = pb::UpdateAccountRequest {
                    name,
                    account: Some(pb::Account {
                        response_limit: Some(1),
                        ..Default::default()
                    }),
                    update_mask: Some(prost_types::FieldMask {
                        paths: vec!["response_limit".into()],
                    }),
                };
                c.update_account(with_md(message, md)).await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.AdminService/CreateKey",
        token,
        strangers,
        |md| {
            let mut c = admin.clone();
            let is_operator = md.contains_key("x-admin-token") && !md.contains_key("x-api-key");
            let account = if is_operator {
                ops_ref.clone()
            } else {
                a_name.clone()
            };
            async move {
                let message = pb::CreateKeyRequest {
                    account,
                    plan: pb::Plan::Unspecified as i32,
                    scopes: vec![pb::Scope::Admin as i32],
                    expires_in: None,
                };
                c.create_key(with_md(message, md)).await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.AdminService/RevokeKey",
        token,
        strangers,
        |md| {
            let mut c = admin.clone();
            let is_operator = md.contains_key("x-admin-token") && !md.contains_key("x-api-key");
            let key_id = if is_operator {
                ops_key.key_id.to_string()
            } else {
                a.key.key_id.to_string()
            };
            async move {
                c.revoke_key(with_md(pb::RevokeKeyRequest { key_id }, md))
                    .await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.AdminService/ListKeys",
        token,
        strangers,
        |md| {
            let mut c = admin.clone();
            let account = a_name.clone();
            async move {
                c.list_keys(with_md(pb::ListKeysRequest { account }, md))
                    .await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.AdminService/LinkIdentity",
        token,
        strangers,
        |md| {
            let mut c = admin.clone();
            let is_operator = md.contains_key("x-admin-token") && !md.contains_key("x-api-key");
            // A stranger tries to move its own session subject onto A's account.
            let (name, subject) = if is_operator {
                (ops_ref.clone(), "user-ops".to_owned())
            } else {
                (a_name.clone(), "user-b".to_owned())
            };
            async move {
                c.link_identity(with_md(
                    pb::LinkIdentityRequest {
                        name,
                        subject,
                        issuer: None,
                    },
                    md,
                ))
                .await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.AdminService/UnlinkIdentity",
        token,
        strangers,
        |md| {
            let mut c = admin.clone();
            let is_operator = md.contains_key("x-admin-token") && !md.contains_key("x-api-key");
            // A stranger tries to end A's sessions; the operator unlinks its own subject.
            let (name, subject) = if is_operator {
                (ops_ref.clone(), "user-ops".to_owned())
            } else {
                (a_name.clone(), "user-a".to_owned())
            };
            async move {
                c.unlink_identity(with_md(
                    pb::UnlinkIdentityRequest {
                        name,
                        subject,
                        issuer: None,
                    },
                    md,
                ))
                .await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.WebhookAdminService/UpdateWebhook",
        token,
        strangers,
        |md| {
            let mut c = hooks.clone();
            let is_operator = md.contains_key("x-admin-token") && !md.contains_key("x-api-key");
            let id = a.webhook_id.clone();
            async move {
                let (webhook, path) = if is_operator {
                    (
                        pb::Webhook {
                            name: "a".into(),
                            ..Default::default()
                        },
                        "name",
                    )
                } else {
                    (
                        pb::Webhook {
                            url: "http://127.0.0.1:9/spy".into(),
                            ..Default::default()
                        },
                        "url",
                    )
                };
                let message = pb::UpdateWebhookRequest {
                    id,
                    webhook: Some(webhook),
                    update_mask: Some(prost_types::FieldMask {
                        paths: vec![path.into()],
                    }),
                };
                c.update_webhook(with_md(message, md)).await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.WebhookAdminService/ListDeliveries",
        token,
        strangers,
        |md| {
            let mut c = hooks.clone();
            let webhook_id = a.webhook_id.clone();
            async move {
                c.list_deliveries(with_md(
                    pb::ListDeliveriesRequest {
                        webhook_id,
                        page: None,
                        per_page: None,
                    },
                    md,
                ))
                .await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.WebhookAdminService/RetryDelivery",
        token,
        strangers,
        |md| {
            let mut c = hooks.clone();
            let id = a.delivery_ids[0].clone();
            async move {
                c.retry_delivery(with_md(pb::RetryDeliveryRequest { id }, md))
                    .await
            }
        },
    )
    .await;
    admin_row(
        m,
        "forms.v1.NotificationAdminService/ListNotifications",
        token,
        strangers,
        |md| {
            let mut c = NotificationAdminServiceClient::new(channel.clone());
            let account = a_name.clone();
            async move {
                let message = pb::ListNotificationsRequest {
                    account,
                    limit: None,
                };
                c.list_notifications(with_md(message, md)).await
            }
        },
    )
    .await;

    // The operator's ListDeliveries of A's webhook lists A's deliveries only.
    let mut operator = tonic::metadata::MetadataMap::new();
    operator.insert("x-admin-token", token.parse().expect("metadata"));
    let listed = hooks
        .clone()
        .list_deliveries(with_md(
            pb::ListDeliveriesRequest {
                webhook_id: a.webhook_id.clone(),
                page: None,
                per_page: Some(100),
            },
            operator,
        ))
        .await
        .expect("ListDeliveries")
        .into_inner();
    let row = "forms.v1.WebhookAdminService/ListDeliveries";
    let mut ids: Vec<String> = listed.deliveries.iter().map(|d| d.id.clone()).collect();
    ids.sort();
    let mut expected = a.delivery_ids.clone();
    expected.sort();
    m.expect(
        row,
        listed
            .deliveries
            .iter()
            .all(|d| d.webhook_id == a.webhook_id),
        || "deliveries of other webhooks listed".to_owned(),
    );
    m.expect(row, ids == expected, || {
        format!("A's deliveries {expected:?}, listed {ids:?}")
    });
    m.expect(
        row,
        !ids.iter().any(|id| b.delivery_ids.contains(id)),
        || "B's deliveries under A's webhook".to_owned(),
    );

    // After the refused attempts: A's key works, B's session is still B's, A unchanged.
    let reply = app.get("/forms", &a.key.key).await;
    m.expect(
        "forms.v1.AdminService/RevokeKey",
        reply.status == 200,
        || format!("A's key stopped working: {}", reply.text),
    );
    let session = Cred::Session(b.session.clone().expect("B's session"));
    let listed = rest(app, &session, Method::GET, "/forms", None).await;
    m.expect(
        "forms.v1.AdminService/LinkIdentity",
        !listed.text.contains(&a.form_id),
        || format!("ISOLATION BUG: B's session now acts as A: {}", listed.text),
    );
    let a_session = Cred::Session(a.session.clone().expect("A's session"));
    let listed = rest(app, &a_session, Method::GET, "/forms", None).await;
    m.expect(
        "forms.v1.AdminService/UnlinkIdentity",
        listed.status == 200 && listed.text.contains(&a.form_id),
        || {
            format!(
                "ISOLATION BUG: a stranger ended A's session: {}",
                listed.text
            )
        },
    );
    let keys: (i64,) = sqlx::query_as(
        "SELECT count(*) FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.name = $1",
    )
    .bind(&a.key.account)
    .fetch_one(&app.pool)
    .await
    .unwrap_or((1,));
    m.expect("forms.v1.AdminService/CreateKey", keys.0 <= 2, || {
        format!("strangers made keys for A: {} keys", keys.0)
    });
}

// ---------------------------------------------------------------------------------------
// Dashboard rows: /app pages and posts with B's session; OwnerService and SessionsService
// ---------------------------------------------------------------------------------------

/// The ids of one tenant's objects, as the dashboard's paths take them.
struct Ids {
    form: String,
    field: String,
    response: String,
    file_response: String,
    file: String,
    webhook: String,
    delivery: String,
    key: String,
}

fn ids_of(t: &Tenant) -> Ids {
    Ids {
        form: t.form_id.clone(),
        field: t.text_field.clone(),
        response: t.response_id.clone(),
        file_response: t.file_response_id.clone(),
        file: t.file_id.clone(),
        webhook: t.webhook_id.clone(),
        delivery: t.delivery_ids[0].clone(),
        key: t.key.key_id.to_string(),
    }
}

/// Every id of `t`'s objects (to look for in what others are shown).
fn all_ids(t: &Tenant) -> Vec<String> {
    let mut ids = vec![
        t.form_id.clone(),
        t.short_id.clone(),
        t.draft_short_id.clone(),
        t.text_field.clone(),
        t.photo_field.clone(),
        t.response_id.clone(),
        t.file_response_id.clone(),
        t.file_id.clone(),
        t.webhook_id.clone(),
        t.key.key_id.to_string(),
    ];
    ids.extend(t.delivery_ids.iter().cloned());
    ids
}

/// The first of `ids` that `text` names.
fn leaked<'a>(text: &str, ids: &'a [String]) -> Option<&'a String> {
    ids.iter().find(|id| text.contains(id.as_str()))
}

/// A dashboard path with A's ids replaced by fresh ones.
fn random_dash_ids(path: &str, a: &Tenant) -> String {
    let mut out = path.to_owned();
    for id in all_ids(a) {
        out = out.replace(id.as_str(), &uuid::Uuid::new_v4().to_string());
    }
    out
}

/// A's deliveries of its webhook, with their status and attempts, as a comparable text,
/// once none is pending (submissions made before are delivered by then).
async fn delivery_state(app: &TestApp, hook: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let pending: (i64,) = sqlx::query_as(
            "SELECT count(*) FROM deliveries WHERE webhook_id = $1::uuid AND status = 'pending'",
        )
        .bind(hook)
        .fetch_one(&app.pool)
        .await
        .expect("pending deliveries");
        if pending.0 == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT id::text || ' ' || status::text || ' ' || attempts::text FROM deliveries \
         WHERE webhook_id = $1::uuid ORDER BY id",
    )
    .bind(hook)
    .fetch_all(&app.pool)
    .await
    .expect("deliveries");
    rows.into_iter().map(|(r,)| r).collect()
}

async fn key_count(app: &TestApp, account: &str) -> i64 {
    let count: (i64,) = sqlx::query_as(
        "SELECT count(*) FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.name = $1",
    )
    .bind(account)
    .fetch_one(&app.pool)
    .await
    .expect("key count");
    count.0
}

/// What A owns, as the REST API shows it to A: compared before and after the strangers.
async fn snapshot(app: &TestApp, a: &Tenant) -> Vec<String> {
    let k = &a.key.key;
    let mut out = vec![
        app.get(&format!("/forms/{}", a.form_id), k).await.text,
        app.get(&format!("/forms/{}/responses?per_page=100", a.form_id), k)
            .await
            .text,
        app.get("/forms?per_page=100", k).await.text,
    ];
    // One line per webhook, so that a change of one is told from the others.
    let hooks = app.get(&format!("/forms/{}/webhooks", a.form_id), k).await;
    out.extend(
        hooks.ok(200)["webhooks"]
            .as_array()
            .into_iter()
            .flatten()
            .map(Value::to_string),
    );
    out.extend(delivery_state(app, &a.webhook_id).await);
    out.push(key_count(app, &a.key.account).await.to_string());
    out
}

/// A session's own sign-in cookie, from a reply that set one.
fn dashboard_of(base: &Dashboard, reply: &Reply, account: &str) -> Option<Dashboard> {
    crate::dashboard_session::session_cookie(reply).map(|cookie| Dashboard {
        base: base.base.clone(),
        cookie,
        csrf: String::new(),
        client: crate::dashboard_session::browser(),
        account: account.to_owned(),
        key: String::new(),
    })
}

/// A dashboard POST with exactly `fields`, the session `cookie` (if any) and other headers.
async fn dash_post(base: &str, path: &str, cookie: Option<&str>, fields: &[(&str, &str)]) -> Reply {
    let mut request = crate::dashboard_session::browser()
        .post(format!("{base}{path}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(serde_urlencoded::to_string(fields).expect("form body"));
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    send(request).await
}

type DashPaths = fn(&Ids, &Ids) -> Vec<String>;

/// Form fields of a dashboard POST.
type Fields = Vec<(&'static str, &'static str)>;
/// A post of A's own: (row, path, fields, expected status).
type OwnPost<'a> = (&'static str, String, Vec<(&'a str, &'a str)>, u16);

/// A dashboard route that takes a foreign id: its row, whether it is a POST, its paths
/// with A's ids (and B's own mixed in), and the fields of a POST.
type DashRow = (&'static str, bool, DashPaths, Fields);

/// The dashboard's routes that take a foreign id: (row, is a POST, the paths with A's ids
/// (and B's own ids mixed in), the form fields of a POST).
fn foreign_dashboard() -> Vec<DashRow> {
    vec![
        (
            "GET /app/forms/{id}",
            false,
            |a, _| vec![format!("/app/forms/{}", a.form)],
            vec![],
        ),
        (
            "POST /app/forms/{id}/details",
            true,
            |a, _| vec![format!("/app/forms/{}/details", a.form)],
            vec![("title", "taken over"), ("description", "by B")],
        ),
        (
            "POST /app/forms/{id}/fields",
            true,
            |a, _| vec![format!("/app/forms/{}/fields", a.form)],
            vec![("kind", "number"), ("label", "Age")],
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/fields/{}", a.form, a.field),
                    format!("/app/forms/{}/fields/{}", me.form, a.field),
                ]
            },
            vec![("label", "Changed"), ("placeholder", "by B")],
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}/conditions",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/fields/{}/conditions", a.form, a.field),
                    format!("/app/forms/{}/fields/{}/conditions", me.form, a.field),
                ]
            },
            vec![("field_0", "x"), ("op_0", "answered")],
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}/move",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/fields/{}/move", a.form, a.field),
                    format!("/app/forms/{}/fields/{}/move", me.form, a.field),
                ]
            },
            vec![("direction", "down")],
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}/duplicate",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/fields/{}/duplicate", a.form, a.field),
                    format!("/app/forms/{}/fields/{}/duplicate", me.form, a.field),
                ]
            },
            vec![],
        ),
        (
            "POST /app/forms/{id}/order",
            true,
            |a, _| vec![format!("/app/forms/{}/order", a.form)],
            vec![("order", "x")],
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}/remove",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/fields/{}/remove", a.form, a.field),
                    format!("/app/forms/{}/fields/{}/remove", me.form, a.field),
                ]
            },
            vec![],
        ),
        (
            "POST /app/forms/{id}/settings",
            true,
            |a, _| vec![format!("/app/forms/{}/settings", a.form)],
            vec![
                ("max_responses", "3"),
                ("redirect_url", "https://example.com/spy"),
            ],
        ),
        (
            "POST /app/forms/{id}/languages",
            true,
            |a, _| vec![format!("/app/forms/{}/languages", a.form)],
            vec![("action", "add"), ("language", "de")],
        ),
        (
            "GET /app/forms/{id}/languages/{lang}",
            false,
            |a, _| vec![format!("/app/forms/{}/languages/de", a.form)],
            vec![],
        ),
        (
            "POST /app/forms/{id}/languages/{lang}",
            true,
            |a, _| vec![format!("/app/forms/{}/languages/de", a.form)],
            vec![("title", "by B")],
        ),
        (
            "POST /app/forms/{id}/languages/{lang}/remove",
            true,
            |a, _| vec![format!("/app/forms/{}/languages/de/remove", a.form)],
            vec![("confirm", "yes")],
        ),
        (
            "POST /app/forms/{id}/design",
            true,
            |a, _| vec![format!("/app/forms/{}/design", a.form)],
            vec![("accent", "#14532d"), ("appearance", "dark")],
        ),
        (
            "POST /app/forms/{id}/logo",
            true,
            |a, _| vec![format!("/app/forms/{}/logo", a.form)],
            vec![("remove", "1")],
        ),
        (
            "POST /app/forms/{id}/status",
            true,
            |a, _| vec![format!("/app/forms/{}/status", a.form)],
            vec![("action", "archive")],
        ),
        (
            "POST /app/forms/{id}/delete",
            true,
            |a, _| vec![format!("/app/forms/{}/delete", a.form)],
            vec![("confirm_title", "a")],
        ),
        (
            "GET /app/forms/{id}/responses",
            false,
            |a, _| {
                vec![
                    format!("/app/forms/{}/responses", a.form),
                    format!("/app/forms/{}/responses?since=2020-01-01", a.form),
                ]
            },
            vec![],
        ),
        (
            "GET /app/forms/{id}/summary",
            false,
            |a, _| vec![format!("/app/forms/{}/summary", a.form)],
            vec![],
        ),
        (
            "GET /app/forms/{id}/responses/export.csv",
            false,
            |a, _| vec![format!("/app/forms/{}/responses/export.csv", a.form)],
            vec![],
        ),
        (
            "GET /app/forms/{id}/responses/export.xlsx",
            false,
            |a, _| vec![format!("/app/forms/{}/responses/export.xlsx", a.form)],
            vec![],
        ),
        (
            "POST /app/forms/{id}/responses/selection",
            true,
            |a, _| vec![format!("/app/forms/{}/responses/selection", a.form)],
            vec![("id", "x"), ("action", "delete"), ("confirm", "yes")],
        ),
        (
            "GET /app/forms/{id}/responses/export.ndjson",
            false,
            |a, _| vec![format!("/app/forms/{}/responses/export.ndjson", a.form)],
            vec![],
        ),
        (
            "GET /app/forms/{id}/responses/{response_id}",
            false,
            |a, me| {
                vec![
                    format!("/app/forms/{}/responses/{}", a.form, a.response),
                    format!("/app/forms/{}/responses/{}", a.form, a.file_response),
                    format!("/app/forms/{}/responses/{}", me.form, a.response),
                ]
            },
            vec![],
        ),
        (
            "POST /app/forms/{id}/responses/{response_id}/delete",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/responses/{}/delete", a.form, a.response),
                    format!("/app/forms/{}/responses/{}/delete", me.form, a.response),
                ]
            },
            vec![("confirm", "yes")],
        ),
        (
            "GET /app/forms/{id}/responses/{response_id}/files/{file_id}",
            false,
            |a, me| {
                vec![
                    format!(
                        "/app/forms/{}/responses/{}/files/{}",
                        a.form, a.file_response, a.file
                    ),
                    format!(
                        "/app/forms/{}/responses/{}/files/{}",
                        me.form, a.file_response, a.file
                    ),
                    format!(
                        "/app/forms/{}/responses/{}/files/{}",
                        me.form, me.file_response, a.file
                    ),
                    format!(
                        "/app/forms/{}/responses/{}/files/{}",
                        a.form, a.file_response, me.file
                    ),
                ]
            },
            vec![],
        ),
        (
            "GET /app/forms/{id}/webhooks",
            false,
            |a, _| vec![format!("/app/forms/{}/webhooks", a.form)],
            vec![],
        ),
        (
            "POST /app/forms/{id}/webhooks",
            true,
            |a, _| vec![format!("/app/forms/{}/webhooks", a.form)],
            vec![
                ("name", "spy"),
                ("url", "http://127.0.0.1:9/spy"),
                ("events", "form.submitted"),
            ],
        ),
        (
            "GET /app/forms/{id}/webhooks/{webhook_id}",
            false,
            |a, me| {
                vec![
                    format!("/app/forms/{}/webhooks/{}", a.form, a.webhook),
                    format!("/app/forms/{}/webhooks/{}", me.form, a.webhook),
                ]
            },
            vec![],
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/webhooks/{}", a.form, a.webhook),
                    format!("/app/forms/{}/webhooks/{}", me.form, a.webhook),
                ]
            },
            vec![
                ("name", "spy"),
                ("url", "http://127.0.0.1:9/spy"),
                ("events", "form.submitted"),
                ("is_active", "on"),
            ],
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}/delete",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/webhooks/{}/delete", a.form, a.webhook),
                    format!("/app/forms/{}/webhooks/{}/delete", me.form, a.webhook),
                ]
            },
            vec![],
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}/test",
            true,
            |a, me| {
                vec![
                    format!("/app/forms/{}/webhooks/{}/test", a.form, a.webhook),
                    format!("/app/forms/{}/webhooks/{}/test", me.form, a.webhook),
                ]
            },
            vec![],
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
            true,
            |a, me| {
                [
                    (&a.form, &a.webhook),
                    (&me.form, &a.webhook),
                    (&me.form, &me.webhook),
                ]
                .into_iter()
                .map(|(form, hook)| {
                    format!(
                        "/app/forms/{form}/webhooks/{hook}/deliveries/{}/retry",
                        a.delivery
                    )
                })
                .collect()
            },
            vec![],
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/send",
            true,
            |a, me| {
                [
                    (&a.form, &a.webhook),
                    (&me.form, &a.webhook),
                    (&me.form, &me.webhook),
                ]
                .into_iter()
                .map(|(form, hook)| {
                    format!(
                        "/app/forms/{form}/webhooks/{hook}/deliveries/{}/send",
                        a.delivery
                    )
                })
                .collect()
            },
            vec![],
        ),
        (
            "GET /app/keys/{key_id}",
            false,
            |a, _| vec![format!("/app/keys/{}", a.key)],
            vec![],
        ),
        (
            "GET /app/keys/{key_id}/revoke",
            false,
            |a, _| vec![format!("/app/keys/{}/revoke", a.key)],
            vec![],
        ),
        (
            "POST /app/keys/{key_id}/revoke",
            true,
            |a, _| vec![format!("/app/keys/{}/revoke", a.key)],
            vec![],
        ),
        (
            "POST /app/account/unlink",
            true,
            |_, _| vec!["/app/account/unlink".to_owned()],
            vec![("subject", "user-a")],
        ),
    ]
}

/// Marks a delivery failed, as the dispatcher leaves one whose retries ran out: what a
/// manual retry is for.
async fn fail_delivery(app: &TestApp, delivery: &str) {
    sqlx::query("UPDATE deliveries SET status = 'failed' WHERE id = $1::uuid")
        .bind(delivery)
        .execute(&app.pool)
        .await
        .expect("a failed delivery");
}

/// Makes a delivery pending and due in an hour: waiting, and held by no worker.
async fn pend_delivery(app: &TestApp, delivery: &str) {
    sqlx::query(
        "UPDATE deliveries SET status = 'pending', locked_until = NULL,
                next_attempt_at = now() + interval '1 hour' WHERE id = $1::uuid",
    )
    .bind(delivery)
    .execute(&app.pool)
    .await
    .expect("a pending delivery");
}

#[allow(clippy::too_many_lines)]
async fn dashboard_rows(m: &mut Matrix, app: &TestApp, a: &Tenant, b: &Tenant) {
    let da = signed_in(app, &a.key.account).await;
    let db = signed_in(app, &b.key.account).await;
    let a_ids = all_ids(a);
    let (ai, bi) = (ids_of(a), ids_of(b));
    let before = snapshot(app, a).await;

    // -- Foreign ids: 404 to B's session, as for ids that exist nowhere.
    let foreign = foreign_dashboard();
    for (row, post, paths_for, fields) in &foreign {
        for path in paths_for(&ai, &bi) {
            let reply = if *post {
                db.post(&path, fields).await
            } else {
                db.get(&path).await
            };
            m.hit(row);
            if reply.status == 404 && leaked(&reply.text, &a_ids).is_none() {
                m.refused.insert(row);
            } else {
                m.fail(format!(
                    "ISOLATION BUG: {row} at {path} as B's session: expected 404 naming nothing of A's, got {} {}",
                    reply.status, reply.text
                ));
                continue;
            }
            let unknown = random_dash_ids(&path, a);
            let baseline = if *post {
                db.post(&unknown, fields).await
            } else {
                db.get(&unknown).await
            };
            m.expect(
                row,
                baseline.status == 404 && without_ids(&baseline.text) == without_ids(&reply.text),
                || {
                    format!(
                        "existence oracle: {path} as B answers {} {}, unknown ids {} {}",
                        reply.status, reply.text, baseline.status, baseline.text
                    )
                },
            );
        }
    }
    // A request of A's own without the CSRF token changes nothing either.
    let path = format!("/app/forms/{}/details", a.form_id);
    let forged = da
        .post_raw(&path, &[("title", "forged"), ("description", "")])
        .await;
    m.expect("POST /app/forms/{id}/details", forged.status != 303, || {
        format!(
            "a post without the CSRF token went through: {}",
            forged.status
        )
    });
    // Nothing of A's changed.
    let after = snapshot(app, a).await;
    m.expect("POST /app/forms/{id}/details", after == before, || {
        let gone: Vec<_> = before.iter().filter(|l| !after.contains(l)).collect();
        let new: Vec<_> = after.iter().filter(|l| !before.contains(l)).collect();
        format!("ISOLATION BUG: A's objects changed under B's session: {gone:?} -> {new:?}")
    });
    m.expect(
        "POST /app/forms/{id}/webhooks",
        !after.iter().any(|t| t.contains("\"spy\"")),
        || "ISOLATION BUG: B added a webhook to A's form".to_owned(),
    );
    let page = da.get("/app/account").await;
    m.expect(
        "POST /app/account/unlink",
        page.text.contains("user-a"),
        || "ISOLATION BUG: B unlinked A's identity".to_owned(),
    );

    // -- Positive controls: A's own session on A's objects (spares for what destroys).
    for (row, post, paths_for, _) in &foreign {
        if *post {
            continue;
        }
        for path in paths_for(&ai, &ai) {
            let got = da.download(&path).await;
            if got.status == 200 {
                m.allowed.insert(row);
            }
            m.expect(row, got.status == 200, || {
                format!(
                    "positive control: {path} as A: {} {}",
                    got.status,
                    got.text()
                )
            });
            if row.ends_with("/files/{file_id}") {
                m.expect(row, got.body == crate::uploads::PNG, || {
                    "A's download is not A's file".to_owned()
                });
            }
            if row.ends_with("export.ndjson") || row.ends_with("export.csv") {
                let text = got.text();
                m.expect(
                    row,
                    text.contains("a by API") && !text.contains("b by "),
                    || format!("A's export is not A's responses only: {text}"),
                );
            }
        }
    }
    // Posts, on spare objects of A's.
    let spare = app.create_form(&a.key.key, &upload_form("spare")).await;
    let sf = spare["id"].as_str().expect("id").to_owned();
    let spare_fields = field_ids(&spare);
    let spare_response = app
        .post(
            &format!("/forms/{}/responses", a.form_id),
            &a.key.key,
            &json!({"answers": {a.text_field.clone(): "spare for the dashboard"}}),
        )
        .await
        .ok(201)["response"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let spare_hook = app
        .post(
            &format!("/forms/{}/webhooks", a.form_id),
            &a.key.key,
            &json!({"name": "A's dashboard spare", "url": "http://127.0.0.1:9/a4", "events": ["form.updated"]}),
        )
        .await
        .ok(201)["webhook"]["id"]
        .as_str()
        .expect("webhook id")
        .to_owned();
    let failed = a.delivery_ids.last().expect("a delivery").clone();
    fail_delivery(app, &failed).await;
    let spare_key = app.key_for(&a.key.account, Plan::Pro, READ).await;
    formsd_cli(
        &app.db.url,
        &[
            "accounts",
            "link-identity",
            &a.key.account,
            "--subject",
            "user-a-spare",
        ],
    )
    .await;
    let (f0, f1) = (&spare_fields[0], &spare_fields[1]);
    let hook = format!("/app/forms/{}/webhooks/{spare_hook}", a.form_id);
    // (row, path, fields, expected status)
    let reversed: Vec<(&str, &str)> = spare_fields
        .iter()
        .rev()
        .map(|f| ("order", f.as_str()))
        .collect();
    let own_posts: Vec<OwnPost> = vec![
        (
            "POST /app/forms/{id}/order",
            format!("/app/forms/{sf}/order"),
            reversed,
            303,
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}/duplicate",
            format!("/app/forms/{sf}/fields/{f0}/duplicate"),
            vec![],
            303,
        ),
        (
            "POST /app/forms/{id}/responses/selection",
            format!("/app/forms/{}/responses/selection", a.form_id),
            vec![("id", spare_response.as_str()), ("action", "csv")],
            200,
        ),
        (
            "POST /app/forms/{id}/details",
            format!("/app/forms/{sf}/details"),
            vec![("title", "spare"), ("description", "touched by A")],
            303,
        ),
        (
            "POST /app/forms/{id}/fields",
            format!("/app/forms/{sf}/fields"),
            vec![("kind", "number"), ("label", "Age")],
            303,
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}",
            format!("/app/forms/{sf}/fields/{f0}"),
            vec![("label", "Full name")],
            303,
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}/conditions",
            format!("/app/forms/{sf}/fields/{f1}/conditions"),
            // No row: saves the field's (empty) conditions as they are.
            vec![],
            303,
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}/move",
            format!("/app/forms/{sf}/fields/{f0}/move"),
            vec![("direction", "down")],
            303,
        ),
        (
            "POST /app/forms/{id}/fields/{field_id}/remove",
            format!("/app/forms/{sf}/fields/{f1}/remove"),
            vec![("confirm", "yes")],
            303,
        ),
        (
            "POST /app/forms/{id}/settings",
            format!("/app/forms/{sf}/settings"),
            vec![("max_responses", "3")],
            303,
        ),
        (
            "POST /app/forms/{id}/languages",
            format!("/app/forms/{sf}/languages"),
            vec![("action", "add"), ("language", "de")],
            303,
        ),
        (
            "POST /app/forms/{id}/languages/{lang}",
            format!("/app/forms/{sf}/languages/de"),
            vec![("title", "Ersatz")],
            303,
        ),
        (
            "POST /app/forms/{id}/languages/{lang}/remove",
            format!("/app/forms/{sf}/languages/de/remove"),
            vec![("confirm", "yes")],
            303,
        ),
        (
            "POST /app/forms/{id}/design",
            format!("/app/forms/{sf}/design"),
            vec![("accent", "#14532d")],
            303,
        ),
        (
            "POST /app/forms/{id}/logo",
            format!("/app/forms/{sf}/logo"),
            vec![("remove", "1")],
            303,
        ),
        (
            "POST /app/forms/{id}/status",
            format!("/app/forms/{sf}/status"),
            vec![("action", "archive")],
            303,
        ),
        (
            "POST /app/forms/{id}/delete",
            format!("/app/forms/{sf}/delete"),
            vec![("confirm_title", "spare")],
            303,
        ),
        (
            "POST /app/forms/{id}/responses/{response_id}/delete",
            format!("/app/forms/{}/responses/{spare_response}/delete", a.form_id),
            vec![("confirm", "yes")],
            303,
        ),
        (
            "POST /app/forms/{id}/webhooks",
            format!("/app/forms/{}/webhooks", a.form_id),
            vec![
                ("name", "A's page-made"),
                ("url", "http://127.0.0.1:9/a5"),
                ("events", "form.updated"),
            ],
            200,
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}",
            hook.clone(),
            vec![
                ("name", "A's renamed spare"),
                ("url", "http://127.0.0.1:9/a4"),
                ("events", "form.updated"),
            ],
            303,
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}/test",
            format!("{hook}/test"),
            vec![],
            303,
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
            format!(
                "/app/forms/{}/webhooks/{}/deliveries/{failed}/retry",
                a.form_id, a.webhook_id
            ),
            vec![],
            303,
        ),
        (
            "POST /app/forms/{id}/webhooks/{webhook_id}/delete",
            format!("{hook}/delete"),
            vec![],
            303,
        ),
        (
            "POST /app/keys/{key_id}/revoke",
            format!("/app/keys/{}/revoke", spare_key.key_id),
            vec![],
            303,
        ),
        (
            "POST /app/account/unlink",
            "/app/account/unlink".to_owned(),
            vec![("subject", "user-a-spare")],
            303,
        ),
        (
            "POST /app/account/design",
            "/app/account/design".to_owned(),
            vec![("accent", "#14532d")],
            303,
        ),
    ];
    for (row, path, fields, status) in &own_posts {
        let reply = da.post(path, fields).await;
        m.rest_status(row, "A's session", path, &reply, *status);
    }
    // A's own pending delivery (not due for an hour: no worker holds it) is sent now.
    pend_delivery(app, &failed).await;
    let path = format!(
        "/app/forms/{}/webhooks/{}/deliveries/{failed}/send",
        a.form_id, a.webhook_id
    );
    let reply = da.post(&path, &[]).await;
    m.rest_status(
        "POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/send",
        "A's session",
        &path,
        &reply,
        303,
    );
    let gone = app.get(&format!("/forms/{sf}"), &a.key.key).await;
    m.expect("POST /app/forms/{id}/delete", gone.status == 404, || {
        format!("A's spare form survived its deletion: {}", gone.text)
    });
    let revoked = app.get("/forms", &spare_key.key).await;
    m.expect(
        "POST /app/keys/{key_id}/revoke",
        revoked.status == 401,
        || format!("A's revoked spare key still works: {}", revoked.status),
    );

    // -- No foreign id: B's session sees and makes only B's own.
    for path in ["/app/forms", "/app/forms?search=a&status=published"] {
        let row = "GET /app/forms";
        let list = db.get(path).await;
        m.rest_status(row, "B's session", path, &list, 200);
        m.expect(row, leaked(&list.text, &a_ids).is_none(), || {
            format!(
                "ISOLATION BUG: B's form list {path} shows A's objects: {}",
                list.text
            )
        });
    }
    let list = db.get("/app/forms").await;
    m.expect("GET /app/forms", list.text.contains(&b.form_id), || {
        format!("B's form list lacks B's form: {}", list.text)
    });
    let made = db.create_form("by B's session").await;
    m.allowed.insert("POST /app/forms");
    let by_a = app.get(&format!("/forms/{made}"), &a.key.key).await;
    m.expect("POST /app/forms", by_a.status == 404, || {
        format!("A reads the form B's session made: {}", by_a.text)
    });
    let by_b = app.get(&format!("/forms/{made}"), &b.key.key).await;
    m.expect("POST /app/forms", by_b.status == 200, || {
        format!("B's new form is not B's: {}", by_b.text)
    });
    for path in [
        format!("/app/forms/{}/responses", b.form_id),
        format!("/app/forms/{}/summary", b.form_id),
        format!("/app/forms/{}/webhooks", b.form_id),
        format!("/app/forms/{}/webhooks/{}", b.form_id, b.webhook_id),
    ] {
        let row = if path.contains("/webhooks/") {
            "GET /app/forms/{id}/webhooks/{webhook_id}"
        } else if path.contains("webhooks") {
            "GET /app/forms/{id}/webhooks"
        } else if path.ends_with("/summary") {
            "GET /app/forms/{id}/summary"
        } else {
            "GET /app/forms/{id}/responses"
        };
        let page = db.get(&path).await;
        m.rest_status(row, "B's session", &path, &page, 200);
        m.expect(
            row,
            leaked(&page.text, &a_ids).is_none() && !page.text.contains("a by "),
            || {
                format!(
                    "ISOLATION BUG: B's page {path} shows A's objects: {}",
                    page.text
                )
            },
        );
    }
    let keys = db.get("/app/keys").await;
    m.rest_status("GET /app/keys", "B's session", "/app/keys", &keys, 200);
    m.expect(
        "GET /app/keys",
        leaked(&keys.text, &a_ids).is_none() && keys.text.contains(&b.key.key_id.to_string()),
        || format!("B's key list is not B's keys only: {}", keys.text),
    );
    let a_keys = key_count(app, &a.key.account).await;
    let b_keys = key_count(app, &b.key.account).await;
    let created = db.post("/app/keys", &[("scopes", "read")]).await;
    m.rest_status("POST /app/keys", "B's session", "/app/keys", &created, 200);
    m.expect(
        "POST /app/keys",
        key_count(app, &a.key.account).await == a_keys
            && key_count(app, &b.key.account).await == b_keys + 1,
        || "B's new key is not B's alone".to_owned(),
    );
    let account = db.get("/app/account").await;
    m.rest_status(
        "GET /app/account",
        "B's session",
        "/app/account",
        &account,
        200,
    );
    m.expect(
        "GET /app/account",
        account.text.contains("user-b")
            && !account.text.contains("user-a")
            && !account.text.contains(&a.key.account),
        || format!("B's account page is not B's alone: {}", account.text),
    );

    // -- Public routes: no session needed, no account's object; with B's session they
    // name nothing of A's.
    let base = db.base.clone();
    for (row, path) in [
        ("GET /", "/"),
        ("GET /app/", "/app/"),
        ("GET /app/assets/{file}", "/app/assets/app.css"),
        ("GET /app/assets/{file}", "/app/assets/app.js"),
        ("GET /app/sign-in", "/app/sign-in"),
        ("GET /app/sign-in/link", "/app/sign-in/link?token=bogus"),
        ("GET /app/sign-in/oidc", "/app/sign-in/oidc"),
        (
            "GET /app/sign-in/oidc/callback",
            "/app/sign-in/oidc/callback?state=bogus&code=bogus",
        ),
    ] {
        let reply = db.get(path).await;
        m.expect(
            row,
            reply.status < 500
                && leaked(&reply.text, &a_ids).is_none()
                && crate::dashboard_session::session_cookie(&reply).is_none(),
            || format!("{path}: {} {}", reply.status, reply.text),
        );
    }
    for (row, path, fields) in [
        (
            "POST /app/sign-in/link",
            "/app/sign-in/link",
            vec![("token", "bogus"), ("next", "/app/forms")],
        ),
        (
            "POST /app/sign-in/mail",
            "/app/sign-in/mail",
            vec![("email", "nobody@example.com")],
        ),
    ] {
        let reply = dash_post(&base, path, Some(&db.cookie), &fields).await;
        m.expect(
            row,
            reply.status < 500
                && leaked(&reply.text, &a_ids).is_none()
                && crate::dashboard_session::session_cookie(&reply).is_none(),
            || format!("{path}: {} {}", reply.status, reply.text),
        );
    }
    // B's provider cookie opens a session of B's, which shows B's forms, not A's.
    let row = "POST /app/sign-in/cookie";
    let provider = format!(
        "session={}",
        b.session.as_deref().expect("B's provider session")
    );
    let reply = dash_post(&base, "/app/sign-in/cookie", Some(&provider), &[]).await;
    match dashboard_of(&db, &reply, &b.key.account) {
        Some(bc) => {
            let list = bc.get("/app/forms").await;
            m.expect(
                row,
                list.status == 200
                    && list.text.contains(&b.form_id)
                    && leaked(&list.text, &a_ids).is_none(),
                || {
                    format!(
                        "B's cookie session is not B's: {} {}",
                        list.status, list.text
                    )
                },
            );
        }
        None => m.expect(row, false, || {
            format!(
                "B's provider cookie opened no session: {} {}",
                reply.status, reply.text
            )
        }),
    }
    // B signs out (a session of its own): that session ends; A's and B's other go on.
    let row = "POST /app/sign-out";
    let leaving = signed_in(app, &b.key.account).await;
    let out = leaving.post("/app/sign-out", &[]).await;
    m.expect(row, matches!(out.status, 200 | 303), || {
        format!("sign-out: {} {}", out.status, out.text)
    });
    let after = leaving.get("/app/forms").await;
    m.expect(row, after.status == 303, || {
        format!("B's session outlived its sign-out: {}", after.status)
    });
    for (who, d) in [("A", &da), ("B", &db)] {
        let page = d.get("/app/forms").await;
        m.expect(row, page.status == 200, || {
            format!("B's sign-out ended {who}'s other session: {}", page.status)
        });
    }
}

/// An API key's call of a dashboard-only method: refused, whoever's key it is.
fn key_refused<T: std::fmt::Debug>(
    m: &mut Matrix,
    row: &'static str,
    what: &str,
    result: &Result<tonic::Response<T>, Status>,
) {
    m.expect(
        row,
        matches!(result, Err(s) if s.code() == Code::PermissionDenied),
        || format!("ISOLATION BUG: an API key calls {row} on {what}: {result:?}"),
    );
}

/// Runs an OwnerService method with each of `foreign` (messages naming A's objects) as
/// B's dashboard session (NOT_FOUND) and with A's API key (refused), then `own` with A's
/// API key (refused: dashboard only) and as A's session (answered).
#[allow(clippy::too_many_arguments)]
async fn owner_foreign<M, T, F, Fut>(
    m: &mut Matrix,
    row: &'static str,
    (da, db): (&Dashboard, &Dashboard),
    key: &Cred,
    change: bool,
    foreign: Vec<(String, M)>,
    own: (String, M),
    call: F,
) -> Option<T>
where
    M: Clone,
    T: std::fmt::Debug,
    F: Fn(tonic::Request<M>) -> Fut,
    Fut: Future<Output = Result<tonic::Response<T>, Status>>,
{
    for (what, message) in foreign {
        let result = call(db.grpc(message.clone(), change)).await;
        m.grpc_not_found(row, "B's dashboard session", &what, &result);
        let result = call(key.grpc(message)).await;
        key_refused(m, row, &what, &result);
    }
    let (what, message) = own;
    let result = call(key.grpc(message.clone())).await;
    key_refused(m, row, &what, &result);
    let result = call(da.grpc(message, change)).await;
    m.grpc_ok(row, &what, result)
}

#[allow(clippy::too_many_lines)]
async fn owner_rows(m: &mut Matrix, app: &TestApp, channel: &Channel, a: &Tenant, b: &Tenant) {
    let da = signed_in(app, &a.key.account).await;
    let db = signed_in(app, &b.key.account).await;
    let both = (&da, &db);
    let key = a.key_cred();
    let owner = OwnerServiceClient::new(channel.clone());
    let a_ids = all_ids(a);
    let spare_hook = app
        .post(
            &format!("/forms/{}/webhooks", a.form_id),
            &a.key.key,
            &json!({"name": "A's gRPC spare", "url": "http://127.0.0.1:9/a6", "events": ["form.updated"]}),
        )
        .await
        .ok(201)["webhook"]["id"]
        .as_str()
        .expect("webhook id")
        .to_owned();
    let spare_key = app.key_for(&a.key.account, Plan::Pro, READ).await;
    let before = snapshot(app, a).await;

    formsd_cli(
        &app.db.url,
        &[
            "accounts",
            "link-identity",
            &a.key.account,
            "--subject",
            "user-a-grpc",
        ],
    )
    .await;
    let subject = |s: &str| pb::UnlinkOwnIdentityRequest {
        subject: s.into(),
        issuer: None,
    };
    owner_foreign(
        m,
        "forms.v1.OwnerService/UnlinkOwnIdentity",
        both,
        &key,
        true,
        vec![("A's subject".into(), subject("user-a"))],
        ("A's spare subject".into(), subject("user-a-grpc")),
        |r| {
            let mut c = owner.clone();
            async move { c.unlink_own_identity(r).await }
        },
    )
    .await;

    let revoke = |id: String| pb::RevokeOwnKeyRequest { key_id: id };
    owner_foreign(
        m,
        "forms.v1.OwnerService/RevokeOwnKey",
        both,
        &key,
        true,
        vec![("A's key".into(), revoke(a.key.key_id.to_string()))],
        ("A's spare key".into(), revoke(spare_key.key_id.to_string())),
        |r| {
            let mut c = owner.clone();
            async move { c.revoke_own_key(r).await }
        },
    )
    .await;
    let usage = |id: String| pb::GetOwnKeyUsageRequest {
        key_id: id,
        days: Some(7),
    };
    owner_foreign(
        m,
        "forms.v1.OwnerService/GetOwnKeyUsage",
        both,
        &key,
        false,
        vec![("A's key".into(), usage(a.key.key_id.to_string()))],
        ("A's key".into(), usage(a.key.key_id.to_string())),
        |r| {
            let mut c = owner.clone();
            async move { c.get_own_key_usage(r).await }
        },
    )
    .await;

    let pairs = [
        ("A's form and webhook", &a.form_id),
        ("A's webhook under B's form", &b.form_id),
    ];
    let update = |form: &str, hook: &str, url: &str, path: &str| pb::UpdateOwnWebhookRequest {
        form_id: form.to_owned(),
        webhook_id: hook.to_owned(),
        webhook: Some(pb::Webhook {
            name: "a".into(),
            url: url.into(),
            ..Default::default()
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: vec![path.into()],
        }),
    };
    owner_foreign(
        m,
        "forms.v1.OwnerService/UpdateOwnWebhook",
        both,
        &key,
        true,
        pairs
            .iter()
            .map(|(what, form)| {
                (
                    (*what).to_owned(),
                    update(form, &a.webhook_id, "http://127.0.0.1:9/spy", "url"),
                )
            })
            .collect(),
        (
            "A's spare webhook".into(),
            update(&a.form_id, &spare_hook, "", "name"),
        ),
        |r| {
            let mut c = owner.clone();
            async move { c.update_own_webhook(r).await }
        },
    )
    .await;
    let deliveries = |form: &str| pb::ListOwnDeliveriesRequest {
        form_id: form.to_owned(),
        webhook_id: a.webhook_id.clone(),
        page: None,
        per_page: Some(100),
    };
    let listed = owner_foreign(
        m,
        "forms.v1.OwnerService/ListOwnDeliveries",
        both,
        &key,
        false,
        pairs
            .iter()
            .map(|(what, form)| ((*what).to_owned(), deliveries(form)))
            .collect(),
        ("A's webhook".into(), deliveries(&a.form_id)),
        |r| {
            let mut c = owner.clone();
            async move { c.list_own_deliveries(r).await }
        },
    )
    .await;
    let listed = format!("{listed:?}");
    m.expect(
        "forms.v1.OwnerService/ListOwnDeliveries",
        a.delivery_ids.iter().all(|d| listed.contains(d))
            && !b.delivery_ids.iter().any(|d| listed.contains(d)),
        || format!("A's delivery list is not A's deliveries only: {listed}"),
    );
    let retry = |form: &str, hook: &str, delivery: &str| pb::RetryOwnDeliveryRequest {
        form_id: form.to_owned(),
        webhook_id: hook.to_owned(),
        delivery_id: delivery.to_owned(),
    };
    let failed = a.delivery_ids[0].clone();
    fail_delivery(app, &failed).await;
    owner_foreign(
        m,
        "forms.v1.OwnerService/RetryOwnDelivery",
        both,
        &key,
        true,
        vec![
            (
                "A's delivery".into(),
                retry(&a.form_id, &a.webhook_id, &failed),
            ),
            (
                "A's delivery under B's form".into(),
                retry(&b.form_id, &a.webhook_id, &failed),
            ),
            (
                "A's delivery under B's webhook".into(),
                retry(&b.form_id, &b.webhook_id, &failed),
            ),
        ],
        (
            "A's failed delivery".into(),
            retry(&a.form_id, &a.webhook_id, &failed),
        ),
        |r| {
            let mut c = owner.clone();
            async move { c.retry_own_delivery(r).await }
        },
    )
    .await;
    let send = |form: &str, hook: &str, delivery: &str| pb::SendOwnDeliveryNowRequest {
        form_id: form.to_owned(),
        webhook_id: hook.to_owned(),
        delivery_id: delivery.to_owned(),
    };
    let pending = a.delivery_ids.last().cloned().unwrap_or_default();
    pend_delivery(app, &pending).await;
    owner_foreign(
        m,
        "forms.v1.OwnerService/SendOwnDeliveryNow",
        both,
        &key,
        true,
        vec![
            (
                "A's delivery".into(),
                send(&a.form_id, &a.webhook_id, &pending),
            ),
            (
                "A's delivery under B's form".into(),
                send(&b.form_id, &a.webhook_id, &pending),
            ),
            (
                "A's delivery under B's webhook".into(),
                send(&b.form_id, &b.webhook_id, &pending),
            ),
        ],
        (
            "A's pending delivery".into(),
            send(&a.form_id, &a.webhook_id, &pending),
        ),
        |r| {
            let mut c = owner.clone();
            async move { c.send_own_delivery_now(r).await }
        },
    )
    .await;
    let test = |form: &str| pb::SendTestEventRequest {
        form_id: form.to_owned(),
        webhook_id: a.webhook_id.clone(),
    };
    for (what, form) in pairs {
        let result = owner
            .clone()
            .send_test_event(db.grpc(test(form), true))
            .await;
        m.grpc_not_found(
            "forms.v1.OwnerService/SendTestEvent",
            "B's dashboard session",
            what,
            &result,
        );
        let result = owner.clone().send_test_event(key.grpc(test(form))).await;
        key_refused(m, "forms.v1.OwnerService/SendTestEvent", what, &result);
    }
    // The strangers' calls changed nothing of A's (checked before A's own test event
    // adds a delivery). Left out: what A's own calls changed, its retried delivery
    // and its key count (the spare key revoked).
    let retried = [
        failed.clone(),
        a.delivery_ids.last().cloned().unwrap_or_default(),
        spare_hook.clone(),
    ];
    let kept = |lines: Vec<String>| -> Vec<String> {
        lines
            .into_iter()
            .filter(|line| {
                !retried.iter().any(|id| line.contains(id.as_str())) && line.parse::<i64>().is_err()
            })
            .collect()
    };
    let (expected, after) = (kept(before), kept(snapshot(app, a).await));
    for row in [
        "forms.v1.OwnerService/UpdateOwnWebhook",
        "forms.v1.OwnerService/RetryOwnDelivery",
        "forms.v1.OwnerService/SendTestEvent",
    ] {
        m.expect(row, after == expected, || {
            let gone: Vec<_> = expected.iter().filter(|l| !after.contains(l)).collect();
            let new: Vec<_> = after.iter().filter(|l| !expected.contains(l)).collect();
            format!("ISOLATION BUG: A's objects changed under B's calls: {gone:?} -> {new:?}")
        });
    }
    let result = owner
        .clone()
        .send_test_event(da.grpc(test(&a.form_id), true))
        .await;
    m.grpc_ok("forms.v1.OwnerService/SendTestEvent", "A's webhook", result);

    // GetFormActivity: A's ids are left out of B's answer.
    let row = "forms.v1.OwnerService/GetFormActivity";
    let activity = |ids: Vec<String>| pb::GetFormActivityRequest {
        form_ids: ids,
        days: Some(7),
    };
    let asked = vec![a.form_id.clone(), b.form_id.clone()];
    let got = owner
        .clone()
        .get_form_activity(db.grpc(activity(asked.clone()), false))
        .await;
    let forms: Vec<String> = m
        .grpc_ok(row, "A's and B's forms, as B", got)
        .map(|r| r.forms.into_iter().map(|f| f.form_id).collect())
        .unwrap_or_default();
    if forms == [b.form_id.clone()] {
        m.refused.insert(row);
    } else {
        m.fail(format!(
            "ISOLATION BUG: {row} as B for A's and B's forms answers {forms:?}"
        ));
    }
    let got = owner
        .clone()
        .get_form_activity(key.grpc(activity(vec![a.form_id.clone()])))
        .await;
    key_refused(m, row, "A's form", &got);
    let got = owner
        .clone()
        .get_form_activity(da.grpc(activity(asked), false))
        .await;
    let forms: Vec<String> = m
        .grpc_ok(row, "A's and B's forms, as A", got)
        .map(|r| r.forms.into_iter().map(|f| f.form_id).collect())
        .unwrap_or_default();
    m.expect(row, forms == [a.form_id.clone()], || {
        format!("{row} as A for A's and B's forms answers {forms:?}")
    });

    // No foreign id: B's own account, keys and new key.
    let row = "forms.v1.OwnerService/GetOwnAccount";
    let got = owner
        .clone()
        .get_own_account(key.grpc(pb::GetOwnAccountRequest {}))
        .await;
    key_refused(m, row, "A's account", &got);
    let got = owner
        .clone()
        .get_own_account(db.grpc(pb::GetOwnAccountRequest {}, false))
        .await;
    let text = format!("{:?}", m.grpc_ok(row, "B's account", got));
    m.expect(
        row,
        text.contains("user-b") && !text.contains("user-a") && leaked(&text, &a_ids).is_none(),
        || format!("ISOLATION BUG: B's account shows A's: {text}"),
    );
    // B's own notification address, by gRPC and by the page; A's stays as it was.
    let row = "forms.v1.OwnerService/UpdateOwnAccount";
    let address = |who: &str| pb::UpdateOwnAccountRequest {
        email: Some(format!("{who}@example.com")),
    };
    let got = owner
        .clone()
        .update_own_account(key.grpc(address("a-by-key")))
        .await;
    key_refused(m, row, "A's account", &got);
    let got = owner
        .clone()
        .update_own_account(db.grpc(address("b-grpc"), true))
        .await;
    let text = format!("{:?}", m.grpc_ok(row, "B's account", got));
    m.expect(
        row,
        text.contains(&b.key.account) && text.contains("b-grpc@example.com"),
        || format!("B's address is not B's: {text}"),
    );
    let row = "POST /app/account/notifications";
    let path = "/app/account/notifications";
    let reply = db.post(path, &[("email", "b-page@example.com")]).await;
    m.rest_status(row, "B's session", path, &reply, 303);
    let a_account = owner
        .clone()
        .get_own_account(da.grpc(pb::GetOwnAccountRequest {}, false))
        .await;
    let text = format!("{:?}", m.grpc_ok(row, "A's account", a_account));
    m.expect(
        row,
        !text.contains("b-page@") && !text.contains("b-grpc@") && !text.contains("a-by-key@"),
        || format!("ISOLATION BUG: A's address changed under B's or a key: {text}"),
    );
    let row = "forms.v1.OwnerService/SetOwnDefaultTheme";
    let theme = || pb::SetOwnDefaultThemeRequest {
        theme: Some(pb::FormTheme {
            accent: Some("#5b21b6".into()),
            ..Default::default()
        }),
    };
    let got = owner.clone().set_own_default_theme(key.grpc(theme())).await;
    key_refused(m, row, "A's default theme", &got);
    let got = owner
        .clone()
        .set_own_default_theme(db.grpc(theme(), true))
        .await;
    m.grpc_ok(row, "B's default theme", got);
    let a_has_it = count(
        app,
        "SELECT count(*) FROM accounts a JOIN forms f ON f.account_id = a.id
          WHERE f.id = $1 AND a.theme::text LIKE '%5b21b6%'",
        &a.form_id,
    )
    .await;
    m.expect(row, a_has_it == 0, || {
        "ISOLATION BUG: B's default theme reached A's account".to_owned()
    });
    let row = "forms.v1.OwnerService/ListOwnKeys";
    let got = owner
        .clone()
        .list_own_keys(key.grpc(pb::ListOwnKeysRequest {}))
        .await;
    key_refused(m, row, "A's keys", &got);
    let got = owner
        .clone()
        .list_own_keys(db.grpc(pb::ListOwnKeysRequest {}, false))
        .await;
    let b_keys: Vec<String> = m
        .grpc_ok(row, "B's keys", got)
        .map(|r| {
            r.keys
                .into_iter()
                .filter_map(|k| k.key)
                .map(|k| k.id)
                .collect()
        })
        .unwrap_or_default();
    m.expect(
        row,
        b_keys.contains(&b.key.key_id.to_string()) && !b_keys.contains(&a.key.key_id.to_string()),
        || format!("ISOLATION BUG: B's keys {b_keys:?} hold A's or lack B's"),
    );
    let row = "forms.v1.OwnerService/CreateOwnKey";
    let message = pb::CreateOwnKeyRequest {
        scopes: vec![pb::Scope::Read as i32],
        expires_at: None,
        label: None,
    };
    let a_count = key_count(app, &a.key.account).await;
    let got = owner
        .clone()
        .create_own_key(key.grpc(message.clone()))
        .await;
    key_refused(m, row, "a new key", &got);
    let got = owner.clone().create_own_key(db.grpc(message, true)).await;
    let made = m.grpc_ok(row, "B's new key", got);
    let secret = made.as_ref().map(|r| r.secret.clone()).unwrap_or_default();
    m.expect(row, key_count(app, &a.key.account).await == a_count, || {
        "ISOLATION BUG: a key was made for A".to_owned()
    });
    let list = app.get("/forms?per_page=100", &secret).await;
    m.expect(
        row,
        list.status == 200 && list.text.contains(&b.form_id) && !list.text.contains(&a.form_id),
        || format!("B's new key is not B's: {} {}", list.status, list.text),
    );
    let revoked = app.get("/forms", &spare_key.key).await;
    m.expect(
        "forms.v1.OwnerService/RevokeOwnKey",
        revoked.status == 401,
        || format!("A's spare key survived its revocation: {}", revoked.status),
    );
    let works = app.get("/forms", &a.key.key).await;
    m.expect(
        "forms.v1.OwnerService/RevokeOwnKey",
        works.status == 200,
        || format!("ISOLATION BUG: A's key stopped working: {}", works.status),
    );
    let page = da.get("/app/account").await;
    m.expect(
        "forms.v1.OwnerService/UnlinkOwnIdentity",
        page.text.contains("user-a") && !page.text.contains("user-a-grpc"),
        || format!("A's identities after the calls: {}", page.text),
    );
}

#[allow(clippy::too_many_lines)]
async fn sessions_rows(
    m: &mut Matrix,
    app: &TestApp,
    channel: &Channel,
    token: &str,
    a: &Tenant,
    b: &Tenant,
    strangers: &[(&str, Cred, &Tenant)],
) {
    let da = signed_in(app, &a.key.account).await;
    let db = signed_in(app, &b.key.account).await;
    let sessions = SessionsServiceClient::new(channel.clone());
    let a_ids = all_ids(a);
    let clean = |m: &mut Matrix, row: &'static str, text: String| {
        m.expect(
            row,
            leaked(&text, &a_ids).is_none() && !text.contains(&a.key.account),
            || format!("ISOLATION BUG: {row} names A's: {text}"),
        );
    };

    // CreateSignInLink: the operator's, for an account of its own.
    let ops = format!("ops-{}", uuid::Uuid::new_v4().simple());
    app.key_for(&ops, PRO, READ).await;
    let ops_ref = &ops;
    let a_name = a.key.account.clone();
    admin_row(
        m,
        "forms.v1.SessionsService/CreateSignInLink",
        token,
        strangers,
        |md| {
            let mut c = sessions.clone();
            let is_operator = md.contains_key("x-admin-token") && !md.contains_key("x-api-key");
            let account = if is_operator {
                ops_ref.clone()
            } else {
                a_name.clone()
            };
            async move {
                c.create_sign_in_link(with_md(pb::CreateSignInLinkRequest { account }, md))
                    .await
            }
        },
    )
    .await;
    let got = sessions
        .clone()
        .create_sign_in_link(db.grpc(
            pb::CreateSignInLinkRequest {
                account: a.key.account.clone(),
            },
            true,
        ))
        .await;
    m.expect(
        "forms.v1.SessionsService/CreateSignInLink",
        admin_denied(&got),
        || format!("ISOLATION BUG: B's dashboard session makes A's sign-in link: {got:?}"),
    );

    // MailSignInLink: the same reply for any address.
    let row = "forms.v1.SessionsService/MailSignInLink";
    let mut replies = Vec::new();
    for email in ["nobody@example.com", "someone-else@example.com"] {
        let got = sessions
            .clone()
            .mail_sign_in_link(db.grpc(
                pb::MailSignInLinkRequest {
                    email: email.into(),
                    base_url: String::new(),
                },
                false,
            ))
            .await;
        replies.push(format!("{:?}", got.map(tonic::Response::into_inner)));
    }
    m.expect(row, replies[0] == replies[1], || format!("{replies:?}"));
    clean(m, row, replies.join(" "));

    // RedeemSignInLink and FinishOidcSignIn: bogus secrets open nothing.
    let row = "forms.v1.SessionsService/RedeemSignInLink";
    let got = sessions
        .clone()
        .redeem_sign_in_link(db.grpc(
            pb::RedeemSignInLinkRequest {
                token: "bogus".into(),
            },
            true,
        ))
        .await;
    m.expect(row, got.is_err(), || {
        format!("a bogus token signed in: {got:?}")
    });
    clean(m, row, format!("{got:?}"));
    let row = "forms.v1.SessionsService/FinishOidcSignIn";
    let got = sessions
        .clone()
        .finish_oidc_sign_in(db.grpc(
            pb::FinishOidcSignInRequest {
                state: "bogus".into(),
                code: "bogus".into(),
            },
            true,
        ))
        .await;
    m.expect(row, got.is_err(), || {
        format!("a bogus state signed in: {got:?}")
    });
    clean(m, row, format!("{got:?}"));
    let row = "forms.v1.SessionsService/BeginOidcSignIn";
    let got = sessions
        .clone()
        .begin_oidc_sign_in(db.grpc(
            pb::BeginOidcSignInRequest {
                redirect_uri: format!("{}/app/sign-in/oidc/callback", db.base),
            },
            true,
        ))
        .await;
    m.hit(row);
    clean(m, row, format!("{got:?}"));

    // SignInWithProviderCookie: B's cookie, B's account.
    let row = "forms.v1.SessionsService/SignInWithProviderCookie";
    let got = sessions
        .clone()
        .sign_in_with_provider_cookie(
            Cred::Session(b.session.clone().expect("B's provider session"))
                .grpc(pb::SignInWithProviderCookieRequest {}),
        )
        .await;
    let session = m
        .grpc_ok(row, "B's provider cookie", got)
        .and_then(|r| r.session);
    m.expect(
        row,
        session
            .as_ref()
            .is_some_and(|s| s.account_name == b.key.account),
        || format!("B's provider cookie signs in as {session:?}"),
    );

    // GetSession: one's own.
    let row = "forms.v1.SessionsService/GetSession";
    for (who, d) in [("A", &da), ("B", &db)] {
        let got = sessions
            .clone()
            .get_session(d.grpc(pb::GetSessionRequest {}, false))
            .await;
        let name = m
            .grpc_ok(row, &format!("{who}'s session"), got)
            .and_then(|r| r.session)
            .map(|s| s.account_name)
            .unwrap_or_default();
        m.expect(row, name == d.account, || {
            format!("{who}'s session is {name}'s")
        });
    }

    // EndSession: B's ends B's own (a session of its own), A's goes on.
    let row = "forms.v1.SessionsService/EndSession";
    let leaving = signed_in(app, &b.key.account).await;
    let got = sessions
        .clone()
        .end_session(leaving.grpc(pb::EndSessionRequest {}, true))
        .await;
    m.grpc_ok(row, "B's spare session", got);
    let ended = sessions
        .clone()
        .get_session(leaving.grpc(pb::GetSessionRequest {}, false))
        .await;
    m.expect(
        row,
        matches!(&ended, Err(s) if s.code() == Code::Unauthenticated),
        || format!("B's ended session lives on: {ended:?}"),
    );
    for (who, d) in [("A", &da), ("B", &db)] {
        let got = sessions
            .clone()
            .get_session(d.grpc(pb::GetSessionRequest {}, false))
            .await;
        m.expect(row, got.is_ok(), || {
            format!("B's EndSession ended {who}'s session: {got:?}")
        });
    }
}

/// A form's theme and logo: strangers cannot set or remove A's logo (over REST or gRPC);
/// the public style sheet and logo of A's published form are anyone's, its draft's are
/// no one's, whatever the credentials.
async fn theme_rows(
    m: &mut Matrix,
    app: &TestApp,
    channel: &Channel,
    origin: &str,
    a: &Tenant,
    strangers: &[(&str, Cred, &Tenant)],
) {
    let forms = FormsServiceClient::new(channel.clone());
    let mut hosted = HostedFormsServiceClient::new(channel.clone());
    let client = http_client();
    // A's own upload (the owner's positive control of the REST row).
    let row = "PUT /api/v1/forms/{form_id}/logo";
    let path = format!("/forms/{}/logo", a.form_id);
    let reply = send(
        a.key_cred()
            .rest(app.request(Method::PUT, &path))
            .body(crate::uploads::PNG.to_vec()),
    )
    .await;
    m.rest_status(row, "A", &path, &reply, 200);
    // Strangers over gRPC, then A, which removes nothing of anyone else's.
    grpc_foreign(
        m,
        "forms.v1.FormsService/SetFormLogo",
        a,
        strangers,
        false,
        |cred, a, _| {
            let mut c = forms.clone();
            let id = a.form_id.clone();
            async move {
                let message = pb::SetFormLogoRequest {
                    id: id.clone(),
                    content: crate::uploads::PNG.to_vec(),
                    remove: false,
                };
                (
                    format!("form {id}"),
                    c.set_form_logo(cred.grpc(message)).await,
                )
            }
        },
    )
    .await;
    // A's logo survived every stranger: served from A's published form to anyone.
    let logo = client
        .get(format!("{origin}/f/{}/logo", a.short_id))
        .send()
        .await
        .expect("logo");
    let status = logo.status();
    let bytes = logo.bytes().await.unwrap_or_default();
    m.expect(
        "GET /f/{short_id}/logo",
        status == 200 && bytes.as_ref() == crate::uploads::PNG,
        || format!("A's logo after strangers' calls: {status}"),
    );
    let sheet = client
        .get(format!("{origin}/f/{}/theme.css", a.short_id))
        .send()
        .await
        .expect("theme.css");
    let status = sheet.status();
    m.expect("GET /f/{short_id}/theme.css", status == 200, || {
        format!("A's published form's theme: {status}")
    });
    for (who, cred, _) in strangers {
        for (row, file) in [
            ("GET /f/{short_id}/theme.css", "theme.css"),
            ("GET /f/{short_id}/logo", "logo"),
        ] {
            let url = format!("{origin}/f/{}/{file}", a.draft_short_id);
            let draft = cred.rest(client.get(&url)).send().await.expect("draft");
            let status = draft.status();
            m.expect(row, status == 404, || {
                format!("ISOLATION BUG: A's draft's {file} as {who}: {status}")
            });
        }
        let theme = hosted
            .get_hosted_theme(cred.grpc(pb::GetHostedThemeRequest {
                short_id: a.draft_short_id.clone(),
            }))
            .await;
        m.grpc_not_found(
            "forms.v1.HostedFormsService/GetHostedTheme",
            who,
            "A's draft",
            &theme,
        );
        let logo = hosted
            .get_hosted_logo(cred.grpc(pb::GetHostedLogoRequest {
                short_id: a.draft_short_id.clone(),
            }))
            .await;
        m.grpc_not_found(
            "forms.v1.HostedFormsService/GetHostedLogo",
            who,
            "A's draft",
            &logo,
        );
    }
    let theme = hosted
        .get_hosted_theme(pb::GetHostedThemeRequest {
            short_id: a.short_id.clone(),
        })
        .await;
    m.grpc_ok(
        "forms.v1.HostedFormsService/GetHostedTheme",
        "A's published form",
        theme,
    );
    let logo = hosted
        .get_hosted_logo(pb::GetHostedLogoRequest {
            short_id: a.short_id.clone(),
        })
        .await;
    m.grpc_ok(
        "forms.v1.HostedFormsService/GetHostedLogo",
        "A's published form",
        logo,
    );
    // A removes its own logo, over gRPC and over REST.
    let removed = forms
        .clone()
        .set_form_logo(a.key_cred().grpc(pb::SetFormLogoRequest {
            id: a.form_id.clone(),
            content: Vec::new(),
            remove: true,
        }))
        .await;
    m.grpc_ok("forms.v1.FormsService/SetFormLogo", "A's form", removed);
    let row = "DELETE /api/v1/forms/{form_id}/logo";
    let reply = rest(app, &a.key_cred(), Method::DELETE, &path, None).await;
    m.rest_status(row, "A", &path, &reply, 200);
}

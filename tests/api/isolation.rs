//! Tenant isolation as a matrix: every REST route (read from the source of
//! `edge/routes/mod.rs`) and every gRPC method (read from the descriptor set) has a row
//! saying how its isolation is checked, and the test checks it. B's credentials (key and
//! session) and an Enterprise account's key acting on A's objects get 404 NOT_FOUND;
//! lists show nothing of A's; A's own calls work (the positive control of every cell).
//! A route or method without a row, or a row without a route, fails the test.

use crate::helpers::*;
use crate::support::*;
use ::forms::accounts::Plan;
use ::forms::pb::{
    self, admin_service_client::AdminServiceClient, forms_service_client::FormsServiceClient,
    gateway_service_client::GatewayServiceClient,
    hosted_forms_service_client::HostedFormsServiceClient,
    notification_admin_service_client::NotificationAdminServiceClient,
    responses_service_client::ResponsesServiceClient, usage_service_client::UsageServiceClient,
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
];

/// The REST routes of the router, as `METHOD path`, read from its source.
pub fn rest_routes() -> BTreeSet<String> {
    rest_routes_in(include_str!("../../edge/routes/mod.rs"))
}

/// The REST routes in the source `src` of a router module like `edge/routes/mod.rs`.
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
    assert_eq!(
        src.matches(".nest(").count(),
        1,
        "one nested router expected"
    );
    let (api, outer) = src
        .split_once(".nest(\"/api/v1\"")
        .expect("the /api/v1 nest");
    let mut routes = BTreeSet::new();
    for (prefix, part) in [("/api/v1", api), ("", outer)] {
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
    routes
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
    let src = include_str!("../../edge/routes/mod.rs");
    let grpc = grpc_methods();
    let (missing, stale) = row_gaps(&rest_routes_in(src), &grpc);
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
            ".fallback(not_found)",
            ".route(\"/metrics\", get(metrics))\n        .fallback(not_found)",
            1,
        );
    let (missing, stale) = row_gaps(&rest_routes_in(&added), &grpc);
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
    let (_, stale) = row_gaps(&rest_routes_in(&removed), &grpc);
    assert_eq!(
        stale,
        ["GET /api/v1/usage"],
        "a removed route leaves a stale row"
    );

    let mut more = grpc.clone();
    more.insert("forms.v1.FormsService/ExportForm".to_owned());
    let (missing, _) = row_gaps(&rest_routes_in(src), &more);
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

/// Text with every UUID replaced by `<id>`.
fn without_ids(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if rest.len() >= 36 && uuid::Uuid::parse_str(&rest[..36]).is_ok() {
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
    let (missing, stale) = row_gaps(&rest_found, &grpc_found);
    assert!(
        missing.is_empty(),
        "routes/methods without an isolation row: {missing:?}"
    );
    assert!(stale.is_empty(), "rows matching no route/method: {stale:?}");

    let token = format!("op-{}", uuid::Uuid::new_v4().simple());
    let app = TestApp::spawn_with(&[
        "--webhook-allow-private",
        "--session-hs256-secret",
        SESSION_SECRET,
        "--admin-token",
        &token,
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

    // -- Probes and the API's description (public, no data).
    for row in [
        "GET /healthz",
        "GET /readyz",
        "GET /api/v1/openapi.json",
        "GET /api/v1/docs",
        "GET /api/v1/docs/{*file}",
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

    // -- gRPC.
    grpc_rows(&mut m, &app, &channel, &hosted, &a, &b, &strangers).await;

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
        "isolation: {} REST routes, {} gRPC methods, {} matrix cells checked in {:?}",
        rest_found.len(),
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
            Kind::NotTenant => {}
        }
    }
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
                c.link_identity(with_md(pb::LinkIdentityRequest { name, subject }, md))
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
                c.unlink_identity(with_md(pb::UnlinkIdentityRequest { name, subject }, md))
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

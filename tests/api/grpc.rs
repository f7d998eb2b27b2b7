//! The core over real gRPC: generated clients, ErrorInfo reasons, rate-limit metadata,
//! health and reflection.

use crate::harness::*;
use ::forms::accounts::Plan;
use ::forms::pb::{
    self, forms_service_client::FormsServiceClient, usage_service_client::UsageServiceClient,
};
use prost_types::{Struct, Value as PbValue, value::Kind};
use serde_json::json;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};
use tonic_types::StatusExt;

async fn channel(app: &TestApp) -> Channel {
    Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core")
}

fn with_key<T>(message: T, key: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("x-api-key", key.parse().expect("metadata value"));
    request
}

fn reason(status: &Status) -> String {
    status
        .get_details_error_info()
        .unwrap_or_else(|| panic!("no ErrorInfo in {status:?}"))
        .reason
}

fn assert_error(status: &Status, code: Code, expected_reason: &str) {
    assert_eq!(status.code(), code, "{status:?}");
    let info = status.get_details_error_info().expect("ErrorInfo");
    assert_eq!(info.reason, expected_reason);
    assert_eq!(info.domain, "forms.v1");
    for name in RATE_HEADERS {
        assert!(
            status.metadata().get(name).is_some(),
            "{name} missing on {status:?}"
        );
    }
}

fn md_u64(md: &tonic::metadata::MetadataMap, name: &str) -> u64 {
    md.get(name)
        .unwrap_or_else(|| panic!("{name} missing"))
        .to_str()
        .expect("ascii")
        .parse()
        .expect("integer")
}

fn number(n: f64) -> PbValue {
    PbValue {
        kind: Some(Kind::NumberValue(n)),
    }
}

#[tokio::test]
async fn grpc_client_creates_lists_gets_updates_and_deletes_a_form() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let mut forms = FormsServiceClient::new(channel(&app).await);

    let created = forms
        .create_form(with_key(
            pb::CreateFormRequest {
                title: "Over gRPC".into(),
                description: Some("made by a generated client".into()),
                fields: vec![pb::FormField {
                    r#type: "email".into(),
                    label: "Email".into(),
                    required: true,
                    ..Default::default()
                }],
                settings: Some(Struct {
                    fields: [("max_responses".to_owned(), number(3.0))].into(),
                }),
                // The form in French too (its default stays English).
                default_language: None,
                translations: Some(::forms::pb::convert::object_to_struct(
                    json!({"fr": {"title": "Par gRPC"}})
                        .as_object()
                        .expect("object"),
                )),
                theme: None,
                retention_days: None,
            },
            &key,
        ))
        .await
        .expect("CreateForm");
    assert_eq!(md_u64(created.metadata(), "x-ratelimit-limit"), 1000);
    let form = created.into_inner().form.expect("form");
    assert_uuid(&form.id);
    assert_eq!(form.title, "Over gRPC");
    assert_eq!(form.status, pb::FormStatus::Draft as i32);
    assert!(form.published_at.is_none());
    assert!(!form.short_id.is_empty());
    assert!(form.created_at.is_some() && form.created_at == form.updated_at);
    assert_eq!(form.fields.len(), 1);
    assert_uuid(&form.fields[0].id);
    assert_eq!(form.default_language.as_deref(), Some("en"));
    let translations =
        ::forms::pb::convert::struct_to_object(form.translations.as_ref().expect("translations"));
    assert_eq!(translations["fr"]["title"], "Par gRPC");

    let listed = forms
        .list_forms(with_key(
            pb::ListFormsRequest {
                per_page: Some(10),
                ..Default::default()
            },
            &key,
        ))
        .await
        .expect("ListForms")
        .into_inner();
    assert_eq!(listed.forms, vec![form.clone()]);
    let pagination = listed.pagination.expect("pagination");
    assert_eq!(
        (pagination.total, pagination.page, pagination.per_page),
        (1, 1, 10)
    );

    let got = forms
        .get_form(with_key(
            pb::GetFormRequest {
                id: form.id.clone(),
            },
            &key,
        ))
        .await
        .expect("GetForm")
        .into_inner()
        .form
        .expect("form");
    assert_eq!(got, form);

    let updated = forms
        .update_form(with_key(
            pb::UpdateFormRequest {
                id: form.id.clone(),
                form: Some(pb::Form {
                    title: "Renamed over gRPC".into(),
                    status: pb::FormStatus::Published as i32,
                    ..Default::default()
                }),
                update_mask: Some(prost_types::FieldMask {
                    paths: vec!["title".into(), "status".into()],
                }),
            },
            &key,
        ))
        .await
        .expect("UpdateForm")
        .into_inner()
        .form
        .expect("form");
    assert_eq!(updated.title, "Renamed over gRPC");
    assert_eq!(updated.status, pb::FormStatus::Published as i32);
    assert!(updated.published_at.is_some());
    assert_eq!(
        updated.description, form.description,
        "not in the mask: kept"
    );
    assert_eq!(updated.fields, form.fields);

    // The same core behind the REST edge: integers restored on the way out.
    let rest = app.get(&format!("/forms/{}", form.id), &key).await;
    let rest_form = &rest.ok(200)["form"];
    assert_eq!(rest_form["title"], "Renamed over gRPC");
    assert_eq!(rest_form["status"], "published");
    assert_eq!(rest_form["settings"], json!({"max_responses": 3}));

    forms
        .delete_form(with_key(
            pb::DeleteFormRequest {
                id: form.id.clone(),
            },
            &key,
        ))
        .await
        .expect("DeleteForm");
    let gone = forms
        .get_form(with_key(
            pb::GetFormRequest {
                id: form.id.clone(),
            },
            &key,
        ))
        .await
        .expect_err("deleted");
    assert_error(&gone, Code::NotFound, "NOT_FOUND");
}

#[tokio::test]
async fn grpc_authentication_errors_carry_error_info() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, READ).await;
    let mut forms = FormsServiceClient::new(channel(&app).await);

    let missing = forms
        .list_forms(Request::new(pb::ListFormsRequest::default()))
        .await
        .expect_err("no key");
    assert_error(&missing, Code::Unauthenticated, "UNAUTHENTICATED");
    assert_eq!(md_u64(missing.metadata(), "x-ratelimit-limit"), 60);

    let wrong = forms
        .list_forms(with_key(
            pb::ListFormsRequest::default(),
            "fsk_0123456789abcdef_nope",
        ))
        .await
        .expect_err("wrong key");
    assert_error(&wrong, Code::Unauthenticated, "KEY_INVALID");
    assert!(!wrong.message().contains("nope"));

    // authorization: Bearer works on gRPC too.
    let mut request = Request::new(pb::ListFormsRequest::default());
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {key}").parse().expect("metadata"),
    );
    let ok = forms.list_forms(request).await.expect("bearer key");
    assert_eq!(md_u64(ok.metadata(), "x-ratelimit-limit"), 1000);
    assert!(ok.metadata().get("x-request-id").is_some());
}

#[tokio::test]
async fn grpc_errors_use_the_spec_reasons() {
    let app = TestApp::spawn_with(&["--enterprise-rate-limit", "1"]).await;
    let read = app.key(PRO, READ).await;
    let write = app.key(PRO, WRITE).await;
    let free = app.key(Plan::Free, ALL).await;
    let channel = channel(&app).await;
    let mut forms = FormsServiceClient::new(channel.clone());
    let mut usage = UsageServiceClient::new(channel);
    let create = |title: &str, kind: &str| pb::CreateFormRequest {
        title: title.into(),
        fields: vec![pb::FormField {
            r#type: kind.into(),
            label: "L".into(),
            ..Default::default()
        }],
        ..Default::default()
    };

    let e = forms
        .create_form(with_key(create("x", "email"), &read))
        .await
        .expect_err("read key");
    assert_error(&e, Code::PermissionDenied, "INSUFFICIENT_SCOPE");
    let e = forms
        .list_forms(with_key(pb::ListFormsRequest::default(), &free))
        .await
        .expect_err("free plan");
    assert_error(&e, Code::PermissionDenied, "PLAN_REQUIRED");
    let e = forms
        .create_form(with_key(create("x", "colour"), &write))
        .await
        .expect_err("bad type");
    assert_error(&e, Code::InvalidArgument, "VALIDATION_ERROR");
    let e = forms
        .create_form(with_key(create("", "email"), &write))
        .await
        .expect_err("no title");
    assert_error(&e, Code::InvalidArgument, "VALIDATION_ERROR");
    let e = forms
        .delete_form(with_key(
            pb::DeleteFormRequest {
                id: uuid::Uuid::new_v4().to_string(),
            },
            &write,
        ))
        .await
        .expect_err("write key cannot delete");
    assert_error(&e, Code::PermissionDenied, "INSUFFICIENT_SCOPE");
    let e = forms
        .get_form(with_key(pb::GetFormRequest { id: "nope".into() }, &read))
        .await
        .expect_err("not a uuid");
    assert_error(&e, Code::NotFound, "NOT_FOUND");
    let e = usage
        .get_usage(with_key(pb::GetUsageRequest { days: Some(91) }, &read))
        .await
        .expect_err("days out of range");
    assert_error(&e, Code::InvalidArgument, "VALIDATION_ERROR");

    // Over the limit: RESOURCE_EXHAUSTED / RATE_LIMITED with retry-after metadata.
    let mut refused = None;
    for _attempt in 0..3 {
        let limited = app.key(Plan::Enterprise, READ).await;
        let first = usage
            .get_usage(with_key(pb::GetUsageRequest { days: None }, &limited))
            .await
            .expect("first request of the window");
        match usage
            .get_usage(with_key(pb::GetUsageRequest { days: None }, &limited))
            .await
        {
            Err(e) => {
                refused = Some(e);
                break;
            }
            // Only acceptable when the two calls straddle a window boundary.
            Ok(second) => assert_ne!(
                md_u64(first.metadata(), "x-ratelimit-reset"),
                md_u64(second.metadata(), "x-ratelimit-reset"),
                "a second request within the window must be refused"
            ),
        }
    }
    let e = refused.expect("a refused request");
    assert_error(&e, Code::ResourceExhausted, "RATE_LIMITED");
    assert!(md_u64(e.metadata(), "retry-after") >= 1);
    assert_eq!(md_u64(e.metadata(), "x-ratelimit-remaining"), 0);
    assert_eq!(md_u64(e.metadata(), "x-ratelimit-limit"), 1);
}

#[tokio::test]
async fn grpc_replies_carry_rate_limit_metadata_and_count_as_usage() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, READ).await;
    let channel = channel(&app).await;
    let mut forms = FormsServiceClient::new(channel.clone());
    let mut usage = UsageServiceClient::new(channel);
    let first = forms
        .list_forms(with_key(pb::ListFormsRequest::default(), &key.key))
        .await
        .expect("ListForms");
    let second = forms
        .list_forms(with_key(pb::ListFormsRequest::default(), &key.key))
        .await
        .expect("ListForms");
    for reply in [&first, &second] {
        assert_eq!(md_u64(reply.metadata(), "x-ratelimit-limit"), 1000);
        let reset = md_u64(reply.metadata(), "x-ratelimit-reset") as i64;
        assert!(reset > unix_now() - 1 && reset <= unix_now() + 60);
        assert_uuid(
            reply
                .metadata()
                .get("x-request-id")
                .expect("x-request-id")
                .to_str()
                .expect("ascii"),
        );
    }
    if md_u64(first.metadata(), "x-ratelimit-reset")
        == md_u64(second.metadata(), "x-ratelimit-reset")
    {
        assert_eq!(md_u64(first.metadata(), "x-ratelimit-remaining"), 999);
        assert_eq!(md_u64(second.metadata(), "x-ratelimit-remaining"), 998);
    }

    let record = usage
        .get_usage(with_key(pb::GetUsageRequest { days: Some(7) }, &key.key))
        .await
        .expect("GetUsage")
        .into_inner()
        .usage
        .expect("usage");
    assert_eq!(record.key_id, key.key_id.to_string());
    assert_eq!(record.period_days, 7);
    assert_eq!(record.daily.len(), 7);
    assert_eq!(record.rate_limit_per_minute, 1000);
    assert_eq!((record.total_requests, record.total_errors), (3, 0));

    // gRPC and REST share the counts.
    let rest = app.get("/usage", &key.key).await;
    assert_eq!(rest.ok(200)["total_requests"], 4);
}

#[tokio::test]
async fn grpc_health_check_reports_serving() {
    use tonic_health::pb::{
        HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
    };
    let app = TestApp::spawn().await;
    let mut health = HealthClient::new(channel(&app).await);
    for service in ["", "forms.v1.FormsService", "forms.v1.UsageService"] {
        let reply = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap_or_else(|e| panic!("health of {service:?}: {e:?}"))
            .into_inner();
        assert_eq!(reply.status, ServingStatus::Serving as i32, "{service:?}");
    }
    let unknown = health
        .check(HealthCheckRequest {
            service: "no.such.Service".into(),
        })
        .await
        .expect_err("unknown service");
    assert_eq!(unknown.code(), Code::NotFound);
}

#[tokio::test]
async fn grpc_reflection_lists_the_services() {
    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
        server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
    };
    let app = TestApp::spawn().await;
    let mut reflection = ServerReflectionClient::new(channel(&app).await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = reflection
        .server_reflection_info(tokio_stream::once(request))
        .await
        .expect("reflection")
        .into_inner();
    let reply = stream
        .message()
        .await
        .expect("reflection reply")
        .expect("one message");
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("unexpected reflection reply {reply:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    for expected in [
        "forms.v1.FormsService",
        "forms.v1.UsageService",
        "grpc.health.v1.Health",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
}

#[tokio::test]
async fn grpc_client_ip_metadata_cannot_evade_the_failed_auth_throttle() {
    let app = TestApp::spawn_with(&["--auth-failures-per-minute", "3"]).await;
    let mut forms = FormsServiceClient::new(channel(&app).await);
    let mut codes = Vec::new();
    for i in 0..6 {
        let mut request = with_key(
            pb::ListFormsRequest::default(),
            "fsk_0123456789abcdef_guess",
        );
        request
            .metadata_mut()
            .insert("x-client-ip", format!("203.0.113.{i}").parse().expect("ip"));
        let e = forms.list_forms(request).await.expect_err("bad key");
        codes.push(reason(&e));
    }
    // The same TCP peer guessed six keys: at most three may be answered as guesses.
    assert_eq!(
        codes.iter().filter(|r| *r == "RATE_LIMITED").count(),
        3,
        "{codes:?}"
    );
}

fn with_admin_token<T>(message: T, token: Option<&str>) -> Request<T> {
    let mut request = Request::new(message);
    if let Some(token) = token {
        request
            .metadata_mut()
            .insert("x-admin-token", token.parse().expect("metadata value"));
    }
    request
}

#[tokio::test]
async fn admin_service_is_closed_without_a_configured_token() {
    use ::forms::pb::admin_service_client::AdminServiceClient;
    let app = TestApp::spawn().await;
    let mut admin = AdminServiceClient::new(channel(&app).await);
    for token in [None, Some(""), Some("anything")] {
        let e = admin
            .create_key(with_admin_token(
                pb::CreateKeyRequest {
                    account: "intruder".into(),
                    plan: pb::Plan::Enterprise as i32,
                    scopes: vec![pb::Scope::Admin as i32],
                    expires_in: None,
                },
                token,
            ))
            .await
            .expect_err("no operator token is configured");
        assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
        assert_eq!(reason(&e), "ADMIN_DENIED");
    }
    let (accounts,): (i64,) = sqlx::query_as("SELECT count(*) FROM accounts")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(accounts, 0);
}

#[tokio::test]
async fn admin_service_manages_keys_with_the_operator_token() {
    use ::forms::pb::admin_service_client::AdminServiceClient;
    let token = format!("op-{}", uuid::Uuid::new_v4().simple());
    let app = TestApp::spawn_with(&["--admin-token", &token]).await;
    let mut admin = AdminServiceClient::new(channel(&app).await);
    let request = |token: Option<&str>| {
        with_admin_token(
            pb::CreateKeyRequest {
                account: "ops-made".into(),
                plan: pb::Plan::Pro as i32,
                scopes: vec![pb::Scope::Read as i32, pb::Scope::Write as i32],
                expires_in: None,
            },
            token,
        )
    };
    for wrong in [None, Some("op-wrong"), Some(&token[..token.len() - 1])] {
        let e = admin.create_key(request(wrong)).await.expect_err("denied");
        assert_eq!(reason(&e), "ADMIN_DENIED");
        assert!(!e.message().contains(&token));
    }
    let created = admin
        .create_key(request(Some(&token)))
        .await
        .expect("CreateKey")
        .into_inner();
    assert_uuid(&created.key_id);
    app.post(
        "/forms",
        &created.key,
        &json!({"title": "By an operator's key"}),
    )
    .await
    .ok(201);

    let listed = admin
        .list_keys(with_admin_token(
            pb::ListKeysRequest {
                account: "ops-made".into(),
            },
            Some(&token),
        ))
        .await
        .expect("ListKeys")
        .into_inner();
    assert_eq!(listed.keys.len(), 1);
    assert_eq!(listed.keys[0].id, created.key_id);
    let secret = split_key(&created.key).1;
    assert!(
        !format!("{listed:?}").contains(secret),
        "ListKeys shows a secret"
    );

    admin
        .revoke_key(with_admin_token(
            pb::RevokeKeyRequest {
                key_id: created.key_id.clone(),
            },
            Some(&token),
        ))
        .await
        .expect("RevokeKey");
    app.get("/forms", &created.key)
        .await
        .error(401, "KEY_INVALID");
    // The operator token stays out of the logs.
    assert!(!app.logs().text().contains(&token));
}

#[tokio::test]
async fn each_service_decodes_no_more_than_its_limit() {
    use ::forms::pb::hosted_forms_service_client::HostedFormsServiceClient;
    let app = TestApp::spawn_with(&["--max-upload-bytes", "1048576"]).await;
    let submit = |bytes: usize| pb::SubmitHostedFormRequest {
        short_id: "nosuchform".into(),
        files: vec![pb::UploadedFile {
            field_id: "f".into(),
            file_name: "big.bin".into(),
            content: vec![0; bytes],
        }],
        ..Default::default()
    };
    let mut hosted = HostedFormsServiceClient::new(channel(&app).await)
        .max_encoding_message_size(64 * 1024 * 1024);
    // The unauthenticated hosted service refuses a message above the largest upload...
    let refused = hosted
        .submit_hosted_form(submit(2 * 1024 * 1024))
        .await
        .expect_err("oversized");
    assert_eq!(refused.code(), Code::OutOfRange, "{refused:?}");
    // ...and reads one below it (then refuses it for what it says: no such form).
    let read = hosted
        .submit_hosted_form(submit(512 * 1024))
        .await
        .expect_err("unknown form");
    assert_eq!(read.code(), Code::NotFound, "{read:?}");
    // The API services decode at most about the REST body limit (here the 4 MiB floor).
    let key = app.key(PRO, ALL).await;
    let mut forms =
        FormsServiceClient::new(channel(&app).await).max_encoding_message_size(64 * 1024 * 1024);
    let huge = pb::CreateFormRequest {
        title: "x".repeat(8 * 1024 * 1024),
        ..Default::default()
    };
    let refused = forms
        .create_form(with_key(huge, &key))
        .await
        .expect_err("oversized");
    assert_eq!(refused.code(), Code::OutOfRange, "{refused:?}");
}

/// UpdateForm with `translations.<tag>` sets one language, as the form is stored when
/// the update runs: a client holding a copy read before another language was saved
/// does not undo it (the translate page saves this way).
#[tokio::test]
async fn grpc_update_of_one_language_keeps_the_others_saved_meanwhile() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "Survey", "fields": [{"type": "short_text", "label": "Name"}]}),
        )
        .await;
    let id = form["id"].as_str().expect("id").to_owned();
    let mut forms = FormsServiceClient::new(channel(&app).await);
    let one = |path: &str, sent: serde_json::Value| {
        let translations = sent.as_object().map(::forms::pb::convert::object_to_struct);
        with_key(
            pb::UpdateFormRequest {
                id: id.clone(),
                form: Some(pb::Form {
                    translations,
                    ..Default::default()
                }),
                update_mask: Some(prost_types::FieldMask {
                    paths: vec![path.to_owned()],
                }),
            },
            &key,
        )
    };
    // French, then German from a client that never saw French.
    let french = one("translations.fr", json!({"fr": {"title": "Enquête"}}));
    forms.update_form(french).await.expect("French saved");
    let german = one("translations.de", json!({"de": {"title": "Umfrage"}}));
    let form = forms.update_form(german).await.expect("German saved");
    let stored = |form: pb::UpdateFormResponse| {
        let form = form.form.expect("form");
        ::forms::pb::convert::struct_to_object(&form.translations.unwrap_or_default())
    };
    let both = stored(form.into_inner());
    assert_eq!(
        (&both["fr"]["title"], &both["de"]["title"]),
        (&json!("Enquête"), &json!("Umfrage"))
    );
    // The path with nothing sent for its language removes it alone.
    let removed = one("translations.fr", json!({}));
    let left = stored(
        forms
            .update_form(removed)
            .await
            .expect("removed")
            .into_inner(),
    );
    assert!(
        left.get("fr").is_none() && left["de"]["title"] == "Umfrage",
        "{left:?}"
    );
    // A language the form cannot be in is refused, in words.
    let unknown = one("translations.xx", json!({"xx": {"title": "?"}}));
    let refused = forms.update_form(unknown).await.expect_err("refused");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused.message().contains("must be one of"),
        "{}",
        refused.message()
    );
}

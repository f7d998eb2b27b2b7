//! Hostile input, generated: a fixed-seed stream of structured random requests against
//! every REST route (ids real and made up, odd query values, arbitrary JSON bodies,
//! raw bytes under any media type, hostile headers) and random messages against the
//! gRPC methods. Every answer must come in bounded time, never be a server error, and
//! the log must show no panic.

use crate::fixtures::{contact_answers, contact_fields, field_ids, grpc_request, published_form};
use crate::harness::*;
use ::forms::pb::responses_service_client::ResponsesServiceClient;
use ::forms::pb::{self, forms_service_client::FormsServiceClient};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};
use std::time::Duration;

/// Cases per protocol: enough to reach every route many times, bounded for CI.
const REST_CASES: usize = 600;
const GRPC_CASES: usize = 300;
/// An answer slower than this is a hang.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// Any JSON value, up to a small depth, with the awkward corners: huge and negative
/// numbers, floats, empty and control-character strings, nested containers.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "\\PC{0,40}".prop_map(Value::String),
        Just(json!("\u{0}\u{7}\n\r<script>")),
        Just(json!("x".repeat(6000))),
    ];
    leaf.prop_recursive(4, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::hash_map("[a-z_]{0,12}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A request body: mostly objects shaped like ours with random values, sometimes
/// anything at all.
fn body() -> impl Strategy<Value = Vec<u8>> {
    let keys = prop::sample::select(vec![
        "title",
        "description",
        "status",
        "fields",
        "settings",
        "answers",
        "metadata",
        "name",
        "url",
        "events",
        "type",
        "label",
        "required",
    ]);
    let shaped = prop::collection::vec((keys, json_value()), 0..6).prop_map(|pairs| {
        let map: serde_json::Map<String, Value> =
            pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        serde_json::to_vec(&Value::Object(map)).unwrap_or_default()
    });
    prop_oneof![
        6 => shaped,
        2 => json_value().prop_map(|v| serde_json::to_vec(&v).unwrap_or_default()),
        1 => prop::collection::vec(any::<u8>(), 0..200),
        1 => Just(b"{\"title\": ".to_vec()),
    ]
}

/// A path segment: a real id of the test's objects, or something made up.
fn segment(real: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(real),
        1 => Just(uuid::Uuid::new_v4().to_string()),
        1 => "[a-zA-Z0-9%._~-]{0,40}",
        1 => Just("%FF%FE".to_owned()),
        1 => Just("..".to_owned()),
        1 => Just("a".repeat(3000)),
    ]
}

fn query() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "page", "per_page", "days", "cursor", "sort", "from", "to", "status", "limit", "x",
    ]);
    let values = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        "[a-zA-Z0-9+/=_-]{0,60}",
        Just("2026-13-45T99:99:99Z".to_owned()),
        Just("%00".to_owned()),
        Just(String::new()),
    ];
    prop::collection::vec((names, values), 0..4).prop_map(|pairs| {
        pairs
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

#[derive(Clone)]
struct Case {
    method: &'static str,
    path: String,
    query: String,
    content_type: &'static str,
    body: Vec<u8>,
    with_key: bool,
    forwarded_for: Option<String>,
}

impl std::fmt::Debug for Case {
    // The body as text, cut short: a failing case stays readable.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let body = String::from_utf8_lossy(&self.body);
        let body: String = body.chars().take(200).collect();
        f.debug_struct("Case")
            .field("method", &self.method)
            .field("path", &self.path.chars().take(200).collect::<String>())
            .field("query", &self.query)
            .field("content_type", &self.content_type)
            .field("body", &body)
            .field("with_key", &self.with_key)
            .field("forwarded_for", &self.forwarded_for)
            .finish()
    }
}

fn case(
    form: String,
    response: String,
    webhook: String,
    short_id: String,
) -> impl Strategy<Value = Case> {
    let ids = vec![form.clone(), response.clone(), webhook.clone()];
    let routes = prop::sample::select(vec![
        ("GET", "/api/v1/forms"),
        ("POST", "/api/v1/forms"),
        ("GET", "/api/v1/forms/{a}"),
        ("PUT", "/api/v1/forms/{a}"),
        ("DELETE", "/api/v1/forms/{a}"),
        ("GET", "/api/v1/forms/{a}/responses"),
        ("POST", "/api/v1/forms/{a}/responses"),
        ("GET", "/api/v1/forms/{a}/responses/{b}"),
        ("DELETE", "/api/v1/forms/{a}/responses/{b}"),
        ("GET", "/api/v1/forms/{a}/responses/{b}/files/{c}"),
        ("GET", "/api/v1/forms/{a}/webhooks"),
        ("POST", "/api/v1/forms/{a}/webhooks"),
        ("DELETE", "/api/v1/forms/{a}/webhooks/{b}"),
        ("GET", "/api/v1/usage"),
        ("PATCH", "/api/v1/forms/{a}"),
        ("GET", "/f/{s}"),
        ("POST", "/f/{s}"),
        ("GET", "/healthz"),
        ("GET", "/readyz"),
        ("GET", "/api/v1/nothing/{a}"),
    ]);
    let types = prop::sample::select(vec![
        "application/json",
        "application/json; charset=utf-8",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz",
        "",
    ]);
    (
        routes,
        segment(ids.clone()),
        segment(ids.clone()),
        segment(ids),
        prop_oneof![3 => Just(short_id), 1 => "[a-zA-Z0-9]{0,12}"],
        query(),
        types,
        body(),
        prop::bool::weighted(0.9),
        prop::option::of("[0-9a-f:., ]{0,40}"),
    )
        .prop_map(
            |(
                (method, template),
                a,
                b,
                c,
                s,
                query,
                content_type,
                body,
                with_key,
                forwarded_for,
            )| Case {
                method,
                path: template
                    .replace("{a}", &a)
                    .replace("{b}", &b)
                    .replace("{c}", &c)
                    .replace("{s}", &s),
                query,
                content_type,
                body,
                with_key,
                forwarded_for,
            },
        )
}

/// `n` values of `strategy` from a fixed seed: the same cases on every run.
fn generate<T: std::fmt::Debug>(strategy: impl Strategy<Value = T>, n: usize, seed: u8) -> Vec<T> {
    let config = Config {
        rng_algorithm: RngAlgorithm::ChaCha,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    (0..n)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("a generated case")
                .current()
        })
        .collect()
}

struct Fixture {
    app: TestApp,
    key: String,
    form: String,
    response: String,
    webhook: String,
    short_id: String,
}

async fn fixture() -> Fixture {
    let app =
        TestApp::spawn_with(&["--pro-rate-limit", "1000000", "--webhook-allow-private"]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let answers = json!({"answers": contact_answers(&field_ids(&form), 1)});
    let response = app
        .post(&format!("/forms/{form_id}/responses"), &key, &answers)
        .await
        .ok(201)["response"]["id"]
        .as_str()
        .expect("response id")
        .to_owned();
    let hook = json!({"name": "f", "url": "http://127.0.0.1:9/hook", "events": ["form.submitted"]});
    let webhook = app
        .post(&format!("/forms/{form_id}/webhooks"), &key, &hook)
        .await
        .ok(201)["webhook"]["id"]
        .as_str()
        .expect("webhook id")
        .to_owned();
    Fixture {
        app,
        key,
        form: form_id,
        response,
        webhook,
        short_id,
    }
}

/// Stops the instance and checks its every line.
async fn no_panics(app: &mut TestApp) {
    let logs = app.logs_to_end().await;
    assert!(!logs.contains("panicked"), "a panic in the log:\n{logs}");
    assert!(
        !logs.contains("internal failure"),
        "an internal failure in the log:\n{logs}"
    );
}

#[tokio::test]
async fn random_rest_requests_never_get_a_server_error() {
    let mut f = fixture().await;
    let origin = f.app.http_base.trim_end_matches("/api/v1").to_owned();
    let cases = generate(
        case(
            f.form.clone(),
            f.response.clone(),
            f.webhook.clone(),
            f.short_id.clone(),
        ),
        REST_CASES,
        7,
    );
    // Connections are reused across cases, as clients do: one the server ends after
    // refusing a body it did not read must say so (`Connection: close`).
    let client = http_client();
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    for case in &cases {
        let url = if case.query.is_empty() {
            format!("{origin}{}", case.path)
        } else {
            format!("{origin}{}?{}", case.path, case.query)
        };
        let method = reqwest::Method::from_bytes(case.method.as_bytes()).expect("method");
        let mut request = client.request(method.clone(), &url);
        // Bodies go with the methods that take one: a server that answers a GET
        // without reading its body may close the connection under a client still
        // sending it, which says nothing about the server.
        if matches!(
            method,
            reqwest::Method::POST | reqwest::Method::PUT | reqwest::Method::PATCH
        ) {
            request = request.body(case.body.clone());
        }
        if !case.content_type.is_empty() {
            request = request.header("content-type", case.content_type);
        }
        if case.with_key {
            request = request.header("x-api-key", &f.key);
        }
        if let Some(xff) = &case.forwarded_for {
            request = request.header("x-forwarded-for", xff);
        }
        let sent = tokio::time::timeout(ANSWER_WITHIN, request.send()).await;
        let reply = match sent {
            Ok(Ok(reply)) => reply,
            // A URL reqwest itself refuses to send is not a case for the server.
            Ok(Err(error)) if error.is_builder() => continue,
            Ok(Err(error)) => panic!("{case:?}: no answer: {error}"),
            Err(_) => panic!("{case:?}: no answer within {ANSWER_WITHIN:?}"),
        };
        let status = reply.status().as_u16();
        *statuses.entry(status).or_default() += 1;
        let text = reply.text().await.unwrap_or_default();
        assert!(status < 500, "{case:?} → {status}: {text}");
        if case.path.starts_with("/api/v1") && status != 204 {
            let envelope: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{case:?} → {status}, not JSON ({e}): {text}"));
            assert!(envelope["success"].is_boolean(), "{case:?}: {text}");
        }
    }
    eprintln!("REST fuzz: {} cases, statuses {statuses:?}", cases.len());
    no_panics(&mut f.app).await;
}

#[tokio::test]
async fn random_grpc_messages_never_get_a_server_error() {
    let mut f = fixture().await;
    let channel = tonic::transport::Channel::from_shared(f.app.grpc_url.clone())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut forms = FormsServiceClient::new(channel.clone());
    let mut responses = ResponsesServiceClient::new(channel);
    let ids = vec![f.form.clone(), f.response.clone(), f.webhook.clone()];
    let strategy = (
        0..5u8,
        segment(ids.clone()),
        segment(ids),
        "\\PC{0,30}",
        json_value(),
        prop::option::of(any::<i32>()),
        prop::option::of("[a-zA-Z0-9+/=_-]{0,80}"),
    );
    let cases = generate(strategy, GRPC_CASES, 11);
    let mut codes = std::collections::BTreeMap::<String, usize>::new();
    for (op, a, b, text, value, number, cursor) in &cases {
        let object = match value {
            Value::Object(map) => map.clone(),
            other => [("v".to_owned(), other.clone())].into_iter().collect(),
        };
        let answers = Some(::forms::pb::convert::object_to_struct(&object));
        let result = match op {
            0 => forms
                .create_form(grpc_request(
                    pb::CreateFormRequest {
                        title: text.clone(),
                        fields: vec![pb::FormField {
                            r#type: text.clone(),
                            label: text.clone(),
                            ..Default::default()
                        }],
                        settings: answers,
                        ..Default::default()
                    },
                    &f.key,
                ))
                .await
                .map(|_| ()),
            1 => forms
                .get_form(grpc_request(pb::GetFormRequest { id: a.clone() }, &f.key))
                .await
                .map(|_| ()),
            2 => responses
                .create_response(grpc_request(
                    pb::CreateResponseRequest {
                        form_id: a.clone(),
                        answers,
                        ..Default::default()
                    },
                    &f.key,
                ))
                .await
                .map(|_| ()),
            3 => responses
                .list_responses(grpc_request(
                    pb::ListResponsesRequest {
                        form_id: a.clone(),
                        per_page: *number,
                        cursor: cursor.clone(),
                        ..Default::default()
                    },
                    &f.key,
                ))
                .await
                .map(|_| ()),
            _ => responses
                .get_response(grpc_request(
                    pb::GetResponseRequest {
                        form_id: a.clone(),
                        id: b.clone(),
                    },
                    &f.key,
                ))
                .await
                .map(|_| ()),
        };
        let code = result.err().map_or(tonic::Code::Ok, |s| s.code());
        assert!(
            !matches!(
                code,
                tonic::Code::Internal | tonic::Code::Unknown | tonic::Code::Unavailable
            ),
            "op {op} ({a}, {b}, {text:?}, {value}) → {code:?}"
        );
        *codes.entry(format!("{code:?}")).or_default() += 1;
    }
    eprintln!("gRPC fuzz: {} cases, codes {codes:?}", cases.len());
    no_panics(&mut f.app).await;
}

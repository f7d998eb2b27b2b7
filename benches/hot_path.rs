//! The request path against the bare work, side by side in one run: formsd (the
//! release build, over its own fresh database) driven by `wrk` (REST) and `h2load`
//! (unary gRPC), and the bare SQL statement of each line driven by `pgbench` on the same
//! database, all at BENCH_CLIENTS connections (32) for BENCH_SECONDS each (8). Prints
//! each rate, its ratio to the bare statement and REST's to gRPC (≥ 0.8×: the REST
//! edge's own cost), formsd's CPU per request on each (from /proc, steadier than the
//! rates on a shared host), and formsd's memory (idle, peak). Each bare INSERT writes the
//! search text formsd writes with a response.
//!
//! Lines (the targets of issue 10 in brackets):
//! - `GET /forms/{id}`, one key, against the bare form SELECT [≥ 0.4×];
//! - `POST /forms/{id}/responses` over 64 accounts, each with its key and form, against
//!   the bare response INSERT over the same 64 forms [≥ 0.4×];
//! - the same POST, 32 clients on one form, against the bare INSERT into it [≥ 0.3×];
//! - a visitor's submission of a hosted page (`POST /f/{short_id}`), 32 clients on one
//!   form in the owner's brand (a theme and a logo) shown in German (a translation, the
//!   visitor's `Accept-Language`), against the bare INSERT into that form [≥ 0.3×];
//! - the POST over 10,000 forms of 100 accounts, each in turn (issue 22, point 5): at
//!   least 95% of creates in one statement (formsd's counters in /metrics), a rate of at
//!   least 0.8× the 64 accounts' line, formsd's RSS growing by no more than its view's
//!   bound of memory.
//!
//! Needs `wrk`, `h2load` (nghttp2-client) and `pgbench` on the PATH.
//! Run: `cargo bench --bench hot_path` (on a server of its own with production settings: see `common::production_server`).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

use bytes::Bytes;
use common::harness::TestApp;
use common::{figure, pgbench, run, wrk};
use forms::accounts::{Plan, Scope};
use forms::pb;
use prost::Message;
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// formsd's flags: no limit in the way; its pool of BENCH_DB_CONNECTIONS (40; fewer
/// when other programs hold the server's connections: pgbench's clients need theirs
/// while formsd keeps its own open).
fn flags() -> Vec<String> {
    let pool = common::env_num("BENCH_DB_CONNECTIONS", 40).to_string();
    [
        "--enterprise-rate-limit",
        "1000000000",
        "--enterprise-response-limit",
        "unlimited",
        "--db-max-connections",
        &pool,
        "--hosted-submissions-per-minute",
        "1000000000",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// One measured line: requests (or transactions) per second; REST's and gRPC's with
/// formsd's CPU per request meanwhile (µs).
struct Rates {
    what: &'static str,
    rest: (f64, f64),
    grpc: Option<(f64, f64)>,
    bare: f64,
    target: f64,
}

/// h2load of one unary gRPC method with a fixed request: requests per second.
fn h2load(url: &str, key: &str, body: &Path, clients: usize, secs: usize) -> f64 {
    let text = run(Command::new("h2load")
        .args(["-c", &clients.to_string(), "-m", "1", "-t", "2"])
        .args(["-D", &secs.to_string()])
        .args(["-H", "content-type: application/grpc", "-H", "te: trailers"])
        .args(["-H", &format!("x-api-key: {key}")])
        .arg("-d")
        .arg(body)
        .arg(url));
    let failed = figure(&text, "requests:", "failed,").max(figure(&text, "requests:", "errored,"));
    assert!(failed == 0.0, "h2load saw failed requests:\n{text}");
    figure(&text, "finished in", "s,")
}

/// Unary gRPC calls of `path` at `clients` HTTP/2 connections, one call in flight on
/// each, taking `calls` (a key and a framed request) in turn: calls per second. For a
/// line whose calls differ in their key, which h2load's fixed headers cannot do; like
/// h2load, it only frames bytes prepared beforehand.
async fn h2_calls(
    addr: &str,
    path: &str,
    calls: &[(String, Vec<u8>)],
    clients: usize,
    secs: usize,
) -> f64 {
    let calls: Arc<Vec<(http::HeaderValue, Bytes)>> = Arc::new(
        calls
            .iter()
            .map(|(key, body)| {
                let key = http::HeaderValue::from_str(key).expect("key header");
                (key, Bytes::from(body.clone()))
            })
            .collect(),
    );
    let uri: http::Uri = format!("{addr}{path}").parse().expect("uri");
    let authority = uri.authority().expect("authority").to_string();
    let start = tokio::time::Instant::now();
    let deadline = start + std::time::Duration::from_secs(secs as u64);
    let mut tasks = tokio::task::JoinSet::new();
    for client in 0..clients {
        let (calls, uri, authority) = (calls.clone(), uri.clone(), authority.clone());
        tasks.spawn(async move {
            let tcp = tokio::net::TcpStream::connect(&authority)
                .await
                .expect("connect");
            tcp.set_nodelay(true).expect("nodelay");
            let (mut h2, connection) = h2::client::handshake(tcp).await.expect("handshake");
            tokio::spawn(connection);
            let mut done = 0usize;
            let mut next = client;
            while tokio::time::Instant::now() < deadline {
                let (key, body) = &calls[next % calls.len()];
                next += clients;
                let request = http::Request::post(uri.clone())
                    .header("content-type", "application/grpc")
                    .header("te", "trailers")
                    .header("x-api-key", key.clone())
                    .body(())
                    .expect("request");
                h2 = h2.ready().await.expect("ready");
                let (response, mut stream) = h2.send_request(request, false).expect("send");
                stream.send_data(body.clone(), true).expect("send body");
                let response = response.await.expect("response");
                let status = response.headers().get("grpc-status").cloned();
                let mut body = response.into_body();
                while let Some(chunk) = body.data().await {
                    let chunk = chunk.expect("body");
                    let _ = body.flow_control().release_capacity(chunk.len());
                }
                let trailers = body.trailers().await.expect("trailers");
                let status = status.or_else(|| trailers?.get("grpc-status").cloned());
                assert_eq!(
                    status.as_ref().map(|s| s.as_bytes()),
                    Some(&b"0"[..]),
                    "a call failed"
                );
                done += 1;
            }
            done
        });
    }
    let mut done = 0;
    while let Some(calls) = tasks.join_next().await {
        done += calls.expect("client");
    }
    done as f64 / start.elapsed().as_secs_f64()
}

/// A gRPC create of a response to `form` answering its `field` "Ada".
fn create_request(form: &str, field: &str) -> pb::CreateResponseRequest {
    let answers = prost_types::Struct {
        fields: [(
            field.to_owned(),
            prost_types::Value {
                kind: Some(prost_types::value::Kind::StringValue("Ada".into())),
            },
        )]
        .into(),
    };
    pb::CreateResponseRequest {
        form_id: form.to_owned(),
        answers: Some(answers),
        ..Default::default()
    }
}

/// A unary gRPC request body: the 5-byte frame header, then the message.
fn grpc_frame(message: &impl Message) -> Vec<u8> {
    let bytes = message.encode_to_vec();
    let mut frame = vec![0u8];
    frame.extend_from_slice(&u32::try_from(bytes.len()).expect("small").to_be_bytes());
    frame.extend_from_slice(&bytes);
    frame
}

/// CPU time a process has used, in clock ticks (user and system).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After the command's name in brackets: the state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    field(14).unwrap_or(0) + field(15).unwrap_or(0)
}

/// formsd's CPU per request (µs) since `before` (ticks), at `rate` for `secs`.
fn per_request(pid: u32, before: u64, rate: f64, secs: usize) -> f64 {
    // Linux counts in USER_HZ, 100 a second on every architecture it runs this on.
    let ticks = cpu_ticks(pid).saturating_sub(before) as f64;
    ticks * 10_000.0 / (rate * secs as f64)
}

/// `run`'s rate, and formsd's CPU per request meanwhile.
fn metered(pid: u32, secs: usize, run: impl FnOnce() -> f64) -> (f64, f64) {
    let before = cpu_ticks(pid);
    let rate = run();
    (rate, per_request(pid, before, rate, secs))
}

/// Memory of a process in kB, from /proc/<pid>/status.
struct Memory {
    /// VmRSS: all resident pages.
    rss: u64,
    /// VmHWM: the most VmRSS has been.
    peak: u64,
    /// RssAnon: the heap and the stacks, which only the process holds.
    anon: u64,
    /// RssFile: pages of files mapped, nearly all the binary's own code and constants
    /// (clean: the kernel takes them back under pressure and reads them again).
    file: u64,
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

fn memory(pid: u32) -> Memory {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    Memory {
        rss: kb("VmRSS:"),
        peak: kb("VmHWM:"),
        anon: kb("RssAnon:"),
        file: kb("RssFile:"),
    }
}

fn lua_string(s: &str) -> String {
    format!("{s:?}")
}

/// A wrk script posting a response to each of `forms` (key, form id, field id) in
/// turn, each wrk thread from an offset of its own.
fn creates_lua<'a>(forms: impl Iterator<Item = (&'a str, &'a str, &'a str)>) -> String {
    let mut lua = String::from("local t = {\n");
    for (key, form, field) in forms {
        lua.push_str(&format!(
            "  {{{}, {}, {}}},\n",
            lua_string(key),
            lua_string(&format!("/api/v1/forms/{form}/responses")),
            lua_string(&json!({"answers": {field: "Ada"}}).to_string())
        ));
    }
    lua.push_str(
        "}\nn = 0\nsetup = function(thread)\n  thread:set(\"n\", math.random(#t))\nend\n\
         request = function()\n  n = n + 1\n  local c = t[(n % #t) + 1]\n  \
         return wrk.format(\"POST\", c[2], {[\"x-api-key\"] = c[1], [\"content-type\"] = \
         \"application/json\"}, c[3])\nend\n",
    );
    lua
}

/// One field of each kind issue 20 added (and the text kinds), a page break, and a
/// condition on the first page's answer.
fn kind_fields() -> serde_json::Value {
    json!([
        {"type": "single_choice", "label": "Colour", "ref": "colour",
         "options": [{"id": "red", "label": "Red"}, {"id": "green", "label": "Green"}]},
        {"type": "dropdown", "label": "Size", "options": [{"id": "s", "label": "S"}, {"id": "m", "label": "M"}]},
        {"type": "multiple_choice", "label": "Toppings",
         "options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}, {"id": "c", "label": "C"}]},
        {"type": "rating", "label": "Stars", "max": 5},
        {"type": "scale", "label": "Likely", "min": 0, "max": 10},
        {"type": "page_break", "label": "More"},
        {"type": "date", "label": "When", "min": "2020-01-01"},
        {"type": "url", "label": "Site"},
        {"type": "phone", "label": "Phone"},
        {"type": "checkbox", "label": "Consent", "required": true},
        {"type": "hidden", "label": "utm_source"},
        {"type": "email", "label": "Email", "required": true},
        {"type": "number", "label": "Age", "min": 0, "max": 150},
        {"type": "short_text", "label": "Why red?",
         "show_if": [{"field": "colour", "op": "equals", "value": "red"}]},
    ])
}

/// Valid answers to every field of `kind_fields` (the page break excepted).
fn kind_answers(form: &serde_json::Value) -> serde_json::Value {
    let values = [
        json!("red"),
        json!("m"),
        json!(["a", "c"]),
        json!(4),
        json!(9),
        serde_json::Value::Null,
        json!("2026-11-24"),
        json!("https://example.com/"),
        json!("+14155550123"),
        json!(true),
        json!("newsletter"),
        json!("ada@example.com"),
        json!(36),
        json!("It is the best"),
    ];
    let fields = form["fields"].as_array().expect("fields");
    let answers: serde_json::Map<String, serde_json::Value> = fields
        .iter()
        .zip(values)
        .filter(|(_, v)| !v.is_null())
        .map(|(f, v)| (f["id"].as_str().expect("id").to_owned(), v))
        .collect();
    serde_json::Value::Object(answers)
}

/// The visitor's languages on the hosted line: German first.
const GERMAN: &str = "de-DE,de;q=0.9,en;q=0.5";

/// A 1×1 PNG, the branded form's logo.
const LOGO: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\0\0\0\0IEND\xaeB`\x82";

/// A visitor's page of a form, read in `languages` (an `Accept-Language`): its
/// address, its HTML, and wrk's script posting `field` answered from it.
struct Visitor {
    url: String,
    html: String,
    script: String,
}

async fn visitor(
    app: &TestApp,
    origin: &str,
    form: &str,
    field: &str,
    languages: Option<&str>,
) -> Visitor {
    let short_id: String = sqlx::query_scalar("SELECT short_id FROM forms WHERE id = $1::uuid")
        .bind(form)
        .fetch_one(&app.pool)
        .await
        .expect("short id");
    let url = format!("{origin}/f/{short_id}");
    let mut get = reqwest::Client::new().get(&url);
    if let Some(languages) = languages {
        get = get.header("accept-language", languages);
    }
    let page = get.send().await.expect("the form's page");
    let cookie = page
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("the page's cookie")
        .to_owned();
    let html = page.text().await.expect("page");
    let token = html
        .split("name=\"_token\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the page's token")
        .to_owned();
    // The page's language goes back with the answers, as the page's form sends it.
    let lang = html
        .split("name=\"_lang\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(|tag| format!("&_lang={tag}"))
        .unwrap_or_default();
    let mut script = format!(
        "wrk.method = \"POST\"\nwrk.headers[\"cookie\"] = {}\n\
         wrk.headers[\"content-type\"] = \"application/x-www-form-urlencoded\"\n\
         wrk.headers[\"user-agent\"] = \"Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0\"\n",
        lua_string(&cookie)
    );
    if let Some(languages) = languages {
        script += &format!(
            "wrk.headers[\"accept-language\"] = {}\n",
            lua_string(languages)
        );
    }
    // The token is URL-safe base64 and the field id a UUID: nothing to escape.
    script += &format!(
        "wrk.body = {}\n",
        lua_string(&format!("_token={token}{lang}&{field}=Ada"))
    );
    Visitor { url, html, script }
}

/// A published form of one question in the owner's brand (a theme and a logo), with a
/// German translation: its id and its field's.
async fn branded_form(app: &TestApp, key: &str) -> (String, String) {
    let body = json!({
        "title": "Survey",
        "fields": [{"type": "short_text", "label": "Your name", "ref": "name"}],
        "theme": {"accent": "#8a3ffc", "background": "#fff8e7", "font": "serif",
                  "radius": 16, "appearance": "auto"},
        "translations": {"de": {"title": "Umfrage",
                                "fields": {"name": {"label": "Ihr Name"}}}},
    });
    let (form, id) = common::published_form(app, key, &body).await;
    let uploaded = app
        .request(reqwest::Method::PUT, &format!("/forms/{id}/logo"))
        .header("x-api-key", key)
        .header("content-type", "image/png")
        .body(LOGO)
        .send()
        .await
        .expect("logo upload");
    assert!(
        uploaded.status().is_success(),
        "logo: {}",
        uploaded.status()
    );
    let field = form["fields"][0]["id"]
        .as_str()
        .expect("field id")
        .to_owned();
    (id, field)
}

#[tokio::main]
async fn main() {
    common::production_server().await;
    let clients = common::env_num("BENCH_CLIENTS", 32);
    let secs = common::env_num("BENCH_SECONDS", 8);
    let dir = tempfile::tempdir().expect("temp dir");
    let flags = flags();
    let app = TestApp::spawn_with(&flags.iter().map(String::as_str).collect::<Vec<_>>()).await;
    let pid = app.server.child.id().expect("formsd pid");
    let origin = app.http_base.trim_end_matches("/api/v1").to_owned();
    let grpc = app.grpc_url.clone();
    let fields = json!([{"type": "short_text", "label": "Name"}]);

    // Accounts, each with its key and a published form of one field.
    let mut tenants = Vec::new();
    for _ in 0..64 {
        let key = app.key(Plan::Enterprise, &[Scope::Admin]).await;
        let body = json!({"title": "Bench", "fields": fields});
        let (form, id) = common::published_form(&app, &key, &body).await;
        let field = form["fields"][0]["id"]
            .as_str()
            .expect("field id")
            .to_owned();
        let account: String =
            sqlx::query_scalar("SELECT account_id::text FROM forms WHERE id = $1::uuid")
                .bind(&id)
                .fetch_one(&app.pool)
                .await
                .expect("account");
        tenants.push((key, id, field, account));
    }
    let (key, form, field, account) = tenants[0].clone();
    // The first account's second form: one field of each kind issue 20 added, with a
    // page break and a condition, so that a create checks every rule.
    let kinds = json!({"title": "Kinds", "fields": kind_fields()});
    let (kinds_form, kinds_id) = common::published_form(&app, &key, &kinds).await;
    let kinds_answers = kind_answers(&kinds_form);
    // The measured body must be a valid one: a 422 is fast and would flatter the line.
    app.post(
        &format!("/forms/{kinds_id}/responses"),
        &key,
        &json!({"answers": kinds_answers}),
    )
    .await
    .ok(201);
    let idle = memory(pid);

    // Scripts: pgbench's bare statements, wrk's requests.
    let write = |name: &str, text: &dyn AsRef<[u8]>| {
        let path = dir.path().join(name);
        std::fs::write(&path, text.as_ref()).expect("script");
        path
    };
    let select = write(
        "select.sql",
        &format!(
            "SELECT id, account_id, short_id, title, description, status, fields, settings, \
             created_at, updated_at, published_at FROM forms \
             WHERE id = '{form}' AND account_id = '{account}';\n"
        ),
    );
    // Each bare INSERT writes the search text formsd writes with a response.
    let insert = |form: &str, field: &str| {
        format!(
            "INSERT INTO responses (id, form_id, answers, started_at, submitted_at, search) \
             VALUES (gen_random_uuid(), '{form}', '{{\"{field}\": \"Ada\"}}', now(), now(), \
             E'{}');\n",
            common::search_literal(&json!({field: "Ada"}))
        )
    };
    let insert_one = write("insert_one.sql", &insert(&form, &field));
    let insert_kinds = write(
        "insert_kinds.sql",
        &format!(
            "INSERT INTO responses (id, form_id, answers, started_at, submitted_at, search) \
             VALUES (gen_random_uuid(), '{kinds_id}', '{}', now(), now(), E'{}');\n",
            // A space after each key's colon: pgbench reads `:name` as a variable.
            kinds_answers
                .to_string()
                .replace("\":", "\": ")
                .replace('\'', "''"),
            common::search_literal(&kinds_answers)
        ),
    );
    let post_kinds_lua = write(
        "post_kinds.lua",
        &format!(
            "wrk.method = \"POST\"\nwrk.headers[\"x-api-key\"] = {}\n\
             wrk.headers[\"content-type\"] = \"application/json\"\nwrk.body = {}\n",
            lua_string(&key),
            lua_string(&json!({"answers": kinds_answers}).to_string())
        ),
    );
    let inserts: Vec<_> = tenants
        .iter()
        .enumerate()
        .map(|(i, (_, form, field, _))| write(&format!("insert_{i}.sql"), &insert(form, field)))
        .collect();
    let body = |field: &str| json!({"answers": {field: "Ada"}}).to_string();
    let get_lua = write(
        "get.lua",
        &format!("wrk.headers[\"x-api-key\"] = {}\n", lua_string(&key)),
    );
    let post_one_lua = write(
        "post_one.lua",
        &format!(
            "wrk.method = \"POST\"\nwrk.headers[\"x-api-key\"] = {}\n\
             wrk.headers[\"content-type\"] = \"application/json\"\nwrk.body = {}\n",
            lua_string(&key),
            lua_string(&body(&field))
        ),
    );
    let many = creates_lua(
        tenants
            .iter()
            .map(|(k, f, i, _)| (k.as_str(), f.as_str(), i.as_str())),
    );
    let post_many_lua = write("post_many.lua", &many);
    // A visitor's page of a form in the owner's brand, shown in German: its token and
    // cookie serve every post (the token is stateless; the per-IP throttle is lifted
    // above).
    // Visitors' pages: the first form as it is, and a form in the owner's brand shown
    // in German. A page's token and cookie serve every post (the token is stateless;
    // the per-IP throttle is lifted above).
    let plain_page = visitor(&app, &origin, &form, &field, None).await;
    let post_plain_lua = write("post_plain.lua", &plain_page.script);
    let (brand, brand_field) = branded_form(&app, &key).await;
    let insert_brand = write("insert_brand.sql", &insert(&brand, &brand_field));
    let brand_page = visitor(&app, &origin, &brand, &brand_field, Some(GERMAN)).await;
    // The measured page is the one meant: German, themed, with its logo.
    for shown in ["lang=\"de\"", "Ihr Name", "/theme.css", "class=\"logo\""] {
        assert!(
            brand_page.html.contains(shown),
            "the branded page lacks {shown}:\n{}",
            brand_page.html
        );
    }
    let post_brand_lua = write("post_brand.lua", &brand_page.script);
    let get_grpc = write(
        "get.bin",
        &grpc_frame(&pb::GetFormRequest { id: form.clone() }),
    );
    let create_grpc = write("create.bin", &grpc_frame(&create_request(&form, &field)));

    // The 64 accounts' creates over gRPC, each with its key.
    let create_many: Vec<(String, Vec<u8>)> = tenants
        .iter()
        .map(|(key, form, field, _)| (key.clone(), grpc_frame(&create_request(form, field))))
        .collect();

    let db = app.db.url.clone();
    let form_url = format!("{origin}/api/v1/forms/{form}");
    if let Some(secs) = std::env::var("BENCH_HOLD")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        // For profiling: keep formsd up with its data and say how to drive it.
        println!("formsd pid {pid}; scripts in {}", dir.path().display());
        println!(
            "wrk -t2 -c{clients} -d10s -s {} {form_url}",
            get_lua.display()
        );
        println!(
            "wrk -t2 -c{clients} -d10s -s {} {origin}",
            post_many_lua.display()
        );
        println!(
            "wrk -t2 -c{clients} -d10s -s {} {form_url}/responses",
            post_one_lua.display()
        );
        println!(
            "wrk -t2 -c{clients} -d10s -s {} {}",
            post_brand_lua.display(),
            brand_page.url
        );
        println!(
            "pgbench -n -M prepared -j2 -c{clients} -T10 -f {} {db}",
            select.display()
        );
        tokio::time::sleep(std::time::Duration::from_secs(secs)).await;
        return;
    }
    let lines = [
        Rates {
            what: "GET /forms/{id}, one key",
            bare: pgbench(&db, &[select], clients, secs),
            rest: metered(pid, secs, || wrk(&form_url, &get_lua, clients, secs)),
            grpc: Some(metered(pid, secs, || {
                let url = format!("{grpc}/forms.v1.FormsService/GetForm");
                h2load(&url, &key, &get_grpc, clients, secs)
            })),
            target: 0.4,
        },
        Rates {
            what: "POST …/responses, 64 accounts",
            bare: pgbench(&db, &inserts, clients, secs),
            rest: metered(pid, secs, || wrk(&origin, &post_many_lua, clients, secs)),
            grpc: Some({
                let before = cpu_ticks(pid);
                let create = "/forms.v1.ResponsesService/CreateResponse";
                let rate = h2_calls(&grpc, create, &create_many, clients, secs).await;
                (rate, per_request(pid, before, rate, secs))
            }),
            target: 0.4,
        },
        Rates {
            what: "POST …/responses, one form",
            bare: pgbench(&db, std::slice::from_ref(&insert_one), clients, secs),
            rest: metered(pid, secs, || {
                wrk(
                    &format!("{form_url}/responses"),
                    &post_one_lua,
                    clients,
                    secs,
                )
            }),
            grpc: Some(metered(pid, secs, || {
                let url = format!("{grpc}/forms.v1.ResponsesService/CreateResponse");
                h2load(&url, &key, &create_grpc, clients, secs)
            })),
            target: 0.3,
        },
        Rates {
            what: "POST …/responses, every kind",
            bare: pgbench(&db, &[insert_kinds], clients, secs),
            rest: metered(pid, secs, || {
                let url = format!("{origin}/api/v1/forms/{kinds_id}/responses");
                wrk(&url, &post_kinds_lua, clients, secs)
            }),
            grpc: None,
            target: 0.3,
        },
        Rates {
            what: "POST /f/{short_id}, one form",
            bare: pgbench(&db, std::slice::from_ref(&insert_one), clients, secs),
            rest: metered(pid, secs, || {
                wrk(&plain_page.url, &post_plain_lua, clients, secs)
            }),
            grpc: None,
            target: 0.3,
        },
        Rates {
            what: "POST /f/{short_id}, branded, de",
            bare: pgbench(&db, &[insert_brand], clients, secs),
            rest: metered(pid, secs, || {
                wrk(&brand_page.url, &post_brand_lua, clients, secs)
            }),
            grpc: None,
            target: 0.3,
        },
    ];
    let loaded = memory(pid);

    println!(
        "\n{clients} clients, {secs} s a line, formsd release build ({} database connections), \
         one host",
        common::env_num("BENCH_DB_CONNECTIONS", 40)
    );
    println!(
        "{:<32} {:>10} {:>10} {:>12} {:>10} {:>10} {:>10} {:>8}",
        "work", "REST/s", "gRPC/s", "bare SQL/s", "REST/bare", "gRPC/bare", "REST/gRPC", "target"
    );
    for line in &lines {
        let ratio =
            |of: Option<f64>, to: f64| of.map_or("–".to_owned(), |r| format!("{:.2}×", r / to));
        let grpc = line.grpc.map(|g| g.0);
        println!(
            "{:<32} {:>10.0} {:>10} {:>12.0} {:>9.2}× {:>10} {:>10} {:>7.1}×",
            line.what,
            line.rest.0,
            grpc.map_or("–".to_owned(), |g| format!("{g:.0}")),
            line.bare,
            line.rest.0 / line.bare,
            ratio(grpc, line.bare),
            grpc.map_or("–".to_owned(), |g| format!("{:.2}×", line.rest.0 / g)),
            line.target
        );
    }
    // What each request costs formsd itself, whatever else the host runs meanwhile.
    println!(
        "\n{:<32} {:>10} {:>10} {:>10}",
        "formsd CPU a request", "REST µs", "gRPC µs", "REST/gRPC"
    );
    for line in &lines {
        let grpc = line.grpc.map(|g| g.1);
        println!(
            "{:<32} {:>10.1} {:>10} {:>10}",
            line.what,
            line.rest.1,
            grpc.map_or("–".to_owned(), |g| format!("{g:.1}")),
            grpc.map_or("–".to_owned(), |g| format!("{:.2}×", line.rest.1 / g)),
        );
    }
    let met = |ok: bool| if ok { "met" } else { "NOT MET" };
    let rest_over_grpc = lines
        .iter()
        .filter_map(|line| Some(line.rest.0 / line.grpc?.0))
        .fold(f64::INFINITY, f64::min);
    println!(
        "REST/gRPC, lowest of the lines: {rest_over_grpc:.2}× [≥ 0.8×: {}]",
        met(rest_over_grpc >= 0.8)
    );
    println!(
        "formsd memory: idle {:.1} MB [≤ 25 MB: {}], peak {:.1} MB [≤ 60 MB: {}] (before the \
         many-forms line); of which the heap and stacks {:.1} MB idle, {:.1} MB after the \
         lines, and the binary's mapped pages {:.1} MB idle, {:.1} MB after",
        mb(idle.rss),
        met(idle.rss <= 25 * 1024),
        mb(loaded.peak),
        met(loaded.peak <= 60 * 1024),
        mb(idle.anon),
        mb(loaded.anon),
        mb(idle.file),
        mb(loaded.file)
    );

    // The many-forms line against 64 of its forms.
    drop(app);
    let many = many_forms(dir.path(), clients, secs).await;
    let (rest64, grpc64) = (many.rest_few, many.grpc_few);
    let share = many.stored / many.created;
    println!(
        "\nPOST …/responses, {MANY_FORMS} forms of {MANY_ACCOUNTS} accounts, each form in \
         turn (after a warm-up create to each)"
    );
    println!(
        "{:<32} {:>10.0} {:>10.0}",
        "creates/s over 64 of the forms", rest64, grpc64
    );
    println!(
        "{:<32} {:>10.0} {:>10.0}   10,000/64: REST {:.2}×, gRPC {:.2}× [≥ 0.8×: {}]",
        "creates/s over the 10,000",
        many.rest,
        many.grpc,
        many.rest / rest64,
        many.grpc / grpc64,
        met(many.rest / rest64 >= 0.8 && many.grpc / grpc64 >= 0.8)
    );
    println!(
        "one-statement creates: {:.0} of {:.0} ({:.1}%) [≥ 95%: {}]",
        many.stored,
        many.created,
        100.0 * share,
        met(share >= 0.95)
    );
    println!(
        "its formsd's RSS: {:.1} MB idle, {:.1} MB after the forms and their warm-up, {:.1} MB \
         after the line; view {:.0} forms in {:.1} MB [growth ≤ the view's {} MB: {}]",
        mb(many.rss_before),
        mb(many.rss_warm),
        mb(many.rss_after),
        many.view_entries,
        many.view_bytes / 1024.0 / 1024.0,
        VIEW_MB,
        met(many.rss_after.saturating_sub(many.rss_before) <= VIEW_MB * 1024)
    );
}

/// Forms of the many-forms line, and the accounts they belong to (a hundred each).
const MANY_FORMS: usize = 10_000;
const MANY_ACCOUNTS: usize = 100;
/// The instance's default `--form-view-bytes`, in MB.
const VIEW_MB: u64 = 64;

/// What the many-forms line measured.
struct ManyForms {
    rest: f64,
    grpc: f64,
    /// The rates over 64 of the forms (of 64 accounts), on the same instance.
    rest_few: f64,
    grpc_few: f64,
    /// Creates stored in one statement, and all creates, during the measured runs.
    stored: f64,
    created: f64,
    /// formsd's RSS (kB) before the forms were made, after the warm-up, at the end.
    rss_before: u64,
    rss_warm: u64,
    rss_after: u64,
    /// formsd's view of forms at the end: forms kept, bytes counted.
    view_entries: f64,
    view_bytes: f64,
}

/// `POST …/responses` over `MANY_FORMS` published forms (made over the API), each form
/// in turn, over REST then gRPC, after a warm-up create to each (a form's first create
/// takes the locked path, which puts it in the instance's view); and over 64 of them
/// (one an account), for the rate to compare with. The share of creates taken in
/// one statement comes from formsd's own counters in /metrics.
async fn many_forms(dir: &Path, clients: usize, secs: usize) -> ManyForms {
    // An instance of its own, which counts its creates in /metrics (the lines above
    // run without a recorder, as the issue measured them).
    let flags = flags();
    let mut flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    flags.extend(["--metrics-addr", "127.0.0.1:0"]);
    let app = &TestApp::spawn_with(&flags).await;
    let pid = app.server.child.id().expect("formsd pid");
    let rss_before = memory(pid).rss;
    let mut keys = Vec::new();
    for _ in 0..MANY_ACCOUNTS {
        keys.push(app.key(Plan::Enterprise, &[Scope::Admin]).await);
    }
    let keys = Arc::new(keys);
    let mut makers = tokio::task::JoinSet::new();
    for worker in 0..clients {
        let (client, base, keys) = (app.client.clone(), app.http_base.clone(), keys.clone());
        makers.spawn(async move {
            let mut made = Vec::new();
            for i in (worker..MANY_FORMS).step_by(clients) {
                let key = &keys[i % MANY_ACCOUNTS];
                let body = json!({"title": format!("Many {i}"),
                                  "fields": [{"type": "short_text", "label": "Name"}]});
                let reply: serde_json::Value = client
                    .post(format!("{base}/forms"))
                    .header("x-api-key", key)
                    .json(&body)
                    .send()
                    .await
                    .expect("create form")
                    .json()
                    .await
                    .expect("form");
                let form = &reply["data"]["form"];
                let id = form["id"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{reply}"))
                    .to_owned();
                let field = form["fields"][0]["id"].as_str().expect("field").to_owned();
                let published = client
                    .put(format!("{base}/forms/{id}"))
                    .header("x-api-key", key)
                    .json(&json!({"status": "published"}))
                    .send()
                    .await
                    .expect("publish");
                assert_eq!(published.status(), 200);
                // The warm-up: the form's first create takes the locked path, which
                // puts the form in the instance's view.
                let created = client
                    .post(format!("{base}/forms/{id}/responses"))
                    .header("x-api-key", key)
                    .json(&json!({"answers": {&field: "Ada"}}))
                    .send()
                    .await
                    .expect("warm-up create");
                assert_eq!(created.status(), 201);
                made.push((i, key.clone(), id, field));
            }
            made
        });
    }
    let mut forms = Vec::new();
    while let Some(made) = makers.join_next().await {
        forms.extend(made.expect("form maker"));
    }
    forms.sort();
    let few = &forms[..64];
    let script = |name: &str, forms: &[(usize, String, String, String)]| {
        let path = dir.join(name);
        let lua = creates_lua(
            forms
                .iter()
                .map(|(_, k, f, i)| (k.as_str(), f.as_str(), i.as_str())),
        );
        std::fs::write(&path, lua).expect("script");
        path
    };
    let (script_all, script_few) = (script("post_10k.lua", &forms), script("post_64.lua", few));
    let frames = |forms: &[(usize, String, String, String)]| -> Vec<(String, Vec<u8>)> {
        forms
            .iter()
            .map(|(_, key, form, field)| (key.clone(), grpc_frame(&create_request(form, field))))
            .collect()
    };
    let (calls, calls_few) = (frames(&forms), frames(few));
    let origin = app.http_base.trim_end_matches("/api/v1").to_owned();
    let metrics = || async {
        let addr = app.server.metrics_addr.expect("metrics address");
        let text = app
            .client
            .get(format!("http://{addr}/metrics"))
            .send()
            .await
            .expect("scrape")
            .text()
            .await
            .expect("metrics");
        let sum = |name, labels| common::metric_sum(&text, name, labels);
        (
            sum("formsd_one_statement_creates_total", "outcome=\"stored\""),
            sum("formsd_responses_created_total", ""),
            sum("formsd_form_view_entries", "view=\"snapshots\""),
            sum("formsd_form_view_bytes", ""),
        )
    };
    let rss_warm = memory(pid).rss;
    let create = "/forms.v1.ResponsesService/CreateResponse";
    // The 64 forms' rate and the 10,000's, back to back, REST then gRPC; the share of
    // one-statement creates is the 10,000's.
    let rest_few = wrk(&origin, &script_few, clients, secs);
    let before_rest = metrics().await;
    let rest = wrk(&origin, &script_all, clients, secs);
    let after_rest = metrics().await;
    let grpc_few = h2_calls(&app.grpc_url, create, &calls_few, clients, secs).await;
    let before_grpc = metrics().await;
    let grpc = h2_calls(&app.grpc_url, create, &calls, clients, secs).await;
    let (stored, created, view_entries, view_bytes) = metrics().await;
    ManyForms {
        rest,
        grpc,
        rest_few,
        grpc_few,
        stored: stored - before_grpc.0 + after_rest.0 - before_rest.0,
        created: created - before_grpc.1 + after_rest.1 - before_rest.1,
        rss_before,
        rss_warm,
        rss_after: memory(pid).rss,
        view_entries,
        view_bytes,
    }
}

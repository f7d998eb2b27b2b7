//! The `formsd` binary as operators use it: key and account commands, SIGTERM, the
//! embedded default database, and the core/edge split.

use crate::fixtures::{metrics_text, sample};
use crate::harness::*;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;

/// Runs a `formsd` command to completion; returns (success, stdout, stderr).
async fn run_formsd(args: &[&str]) -> (bool, String, String) {
    let mut cmd = formsd_command();
    cmd.args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let output = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .unwrap_or_else(|_| panic!("formsd {args:?} did not finish"))
        .expect("running formsd");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

async fn run_ok(args: &[&str]) -> String {
    let (ok, stdout, stderr) = run_formsd(args).await;
    assert!(ok, "formsd {args:?} failed:\n{stderr}");
    stdout
}

#[tokio::test]
async fn cli_creates_lists_and_revokes_keys_and_changes_plans() {
    let app = TestApp::spawn().await;
    let url = app.db.url.clone();
    let db = ["--database-url", url.as_str()];
    let account = format!("cli-{}", uuid::Uuid::new_v4().simple());
    let create = |scopes: &'static str, extra: &'static [&'static str]| {
        let mut args = db.to_vec();
        args.extend(["keys", "create", "--account", &account, "--plan", "pro"]);
        args.extend(["--scopes", scopes, "--json"]);
        args.extend(extra);
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = run_ok(&args).await;
            let created: Value = serde_json::from_str(out.trim()).expect("JSON on stdout");
            created
        }
    };
    let created = create("read,write", &[]).await;
    assert_eq!(keys_of(&created), ["account_id", "key", "key_id"]);
    let key = created["key"].as_str().expect("key").to_owned();
    let key_id = created["key_id"].as_str().expect("key_id").to_owned();
    assert_uuid(&key_id);
    assert_uuid(created["account_id"].as_str().expect("account_id"));
    assert!(key.starts_with("fsk_"), "{key}");

    // The key works with exactly its scopes.
    app.get("/forms", &key).await.ok(200);
    let form = app.create_form(&key, &json!({"title": "CLI"})).await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    app.delete(&path, &key)
        .await
        .error(403, "INSUFFICIENT_SCOPE");

    // A second key of the same account, with an expiry; the list never shows secrets.
    let second = create("admin", &["--expires-in", "30d"]).await;
    assert_eq!(second["account_id"], created["account_id"]);
    let mut list_args = db.to_vec();
    list_args.extend(["keys", "list", "--account", &account, "--json"]);
    let listed = run_ok(&list_args).await;
    let (prefix, secret) = split_key(&key);
    assert!(!listed.contains(secret), "keys list shows a secret");
    let items: Value = serde_json::from_str(listed.trim()).expect("JSON list");
    let items = items.as_array().expect("array");
    assert_eq!(items.len(), 2);
    let first = items
        .iter()
        .find(|k| k["key_id"] == key_id.as_str())
        .expect("first key listed");
    assert_eq!(first["prefix"], prefix);
    assert_eq!(first["scopes"], json!(["read", "write"]));
    assert_eq!(first["revoked_at"], Value::Null);
    assert_eq!(first["expires_at"], Value::Null);
    let other = items
        .iter()
        .find(|k| k["key_id"] == second["key_id"])
        .expect("second key listed");
    let expires: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(other["expires_at"].clone()).expect("expires_at timestamp");
    let in_30_days = chrono::Utc::now() + chrono::Duration::days(30);
    assert!(
        (expires - in_30_days).num_seconds().abs() < 300,
        "{expires}"
    );
    let admin_key = second["key"].as_str().expect("key").to_owned();
    assert_eq!(app.delete(&path, &admin_key).await.status, 204);

    // Revoking from the command line takes effect at once.
    let mut revoke_args = db.to_vec();
    revoke_args.extend(["keys", "revoke", &key_id]);
    let revoked = run_ok(&revoke_args).await;
    assert!(!revoked.contains(secret));
    app.get("/forms", &key).await.error(401, "KEY_INVALID");
    let listed: Value = serde_json::from_str(run_ok(&list_args).await.trim()).expect("JSON");
    let first = listed
        .as_array()
        .expect("array")
        .iter()
        .find(|k| k["key_id"] == key_id.as_str())
        .expect("still listed")
        .clone();
    assert!(first["revoked_at"].is_string(), "{first}");

    // Plan changes from the command line apply to existing keys.
    let mut update_args = db.to_vec();
    update_args.extend(["accounts", "update", &account, "--plan", "free"]);
    let updated: Value = serde_json::from_str(run_ok(&update_args).await.trim()).expect("JSON");
    assert_eq!(updated["plan"], "free");
    // The serving instance hears of the change by notification (within a second).
    let reply = crate::fixtures::eventually("the new plan", crate::fixtures::NOTIFIED, || async {
        let reply = app.get("/forms", &admin_key).await;
        (reply.status == 403).then_some(reply)
    })
    .await;
    reply.error(403, "PLAN_REQUIRED");

    // Bad input is refused with a failing exit status.
    let mut bad = db.to_vec();
    bad.extend([
        "keys",
        "create",
        "--account",
        &account,
        "--scopes",
        "superuser",
    ]);
    assert!(!run_formsd(&bad).await.0, "unknown scope accepted");
    // A lifetime past the calendar's end is refused, not a panic.
    let mut bad = db.to_vec();
    bad.extend(["keys", "create", "--account", &account, "--scopes", "read"]);
    bad.extend(["--expires-in", "100000000000years"]);
    let (ok, _, stderr) = run_formsd(&bad).await;
    assert!(!ok && stderr.contains("expires_in is too long"), "{stderr}");
    let mut bad = db.to_vec();
    bad.extend(["keys", "revoke", "not-a-uuid"]);
    assert!(!run_formsd(&bad).await.0, "bad key id accepted");
    let mut bad = db.to_vec();
    let unknown = uuid::Uuid::new_v4().to_string();
    bad.extend(["keys", "revoke", &unknown]);
    assert!(!run_formsd(&bad).await.0, "unknown key id accepted");
}

#[tokio::test]
async fn sigterm_stops_the_server_cleanly() {
    let mut app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    app.get("/forms", &key).await.ok(200);
    let status = app.server.terminate().await;
    assert!(
        status.success(),
        "exit status {status:?}\n{}",
        app.logs().text()
    );
    let logs = app.logs().json_lines();
    assert!(
        logs.iter()
            .any(|l| l["fields"]["message"] == "shutting down"),
        "{}",
        app.logs().text()
    );
    assert!(
        logs.iter().all(|l| l["level"] != "ERROR"),
        "errors logged: {}",
        app.logs().text()
    );
    // The ports are closed.
    let refused = app
        .client
        .get(format!("{}/forms", app.http_base))
        .send()
        .await;
    assert!(refused.is_err(), "REST port still answers");
}

/// Stops an embedded cluster left running by a failed test (fast shutdown by pid) so
/// that its temporary directory can go.
struct StopPostgres(PathBuf);

impl Drop for StopPostgres {
    fn drop(&mut self) {
        let pid_file = self.0.join("pgdata/postmaster.pid");
        let Ok(text) = std::fs::read_to_string(&pid_file) else {
            return;
        };
        if let Some(pid) = text
            .lines()
            .next()
            .and_then(|l| l.trim().parse::<i32>().ok())
        {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGINT,
            );
            for _ in 0..100 {
                if !pid_file.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

fn embedded_args<'a>(data_dir: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--data-dir", data_dir, "--log-format", "json"];
    args.extend(rest);
    args
}

#[tokio::test]
async fn embedded_default_database_serves_with_a_cli_key() {
    let dir = tempfile::Builder::new()
        .prefix("formsd-e2e-")
        .tempdir_in("/tmp")
        .expect("temporary directory");
    // When we are root, PostgreSQL runs as another user that must reach the data dir.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let data: PathBuf = dir.path().join("data");
    let data_str = data.to_str().expect("UTF-8 path").to_owned();
    let _stop = StopPostgres(data.clone());

    // No DATABASE_URL anywhere (formsd_command clears it).
    let create = embedded_args(
        &data_str,
        &[
            "keys",
            "create",
            "--account",
            "acme",
            "--plan",
            "pro",
            "--scopes",
            "read,write,admin",
            "--json",
        ],
    );
    let out = run_ok(&create).await;
    let created: Value = serde_json::from_str(out.trim()).expect("JSON on stdout");
    let key = created["key"].as_str().expect("key").to_owned();
    assert!(
        !data.join("pgdata/postmaster.pid").exists(),
        "keys create leaves no server running"
    );

    let serve: Vec<String> = embedded_args(
        &data_str,
        &[
            "serve",
            "--http-addr",
            "127.0.0.1:0",
            "--grpc-addr",
            "127.0.0.1:0",
        ],
    )
    .into_iter()
    .map(str::to_owned)
    .collect();
    let mut server = Formsd::start(&serve).await;
    let client = http_client();
    let base = server.http_base();
    let reply = send(
        client
            .get(format!("{base}/forms"))
            .header("x-api-key", &key),
    )
    .await;
    assert_eq!(reply.ok(200)["forms"], json!([]));
    let reply = send(
        client
            .post(format!("{base}/forms"))
            .header("x-api-key", &key)
            .json(&json!({"title": "Embedded"})),
    )
    .await;
    assert_eq!(reply.ok(201)["form"]["title"], "Embedded");
    assert!(
        data.join("pgdata/PG_VERSION").exists(),
        "cluster is in --data-dir"
    );
    if nix::unistd::geteuid().is_root() {
        assert_password_required(&data).await;
    }

    let started = server.logs.text();
    assert!(
        started.contains(&format!(
            "http://{}/app/",
            server.http_addr.expect("REST address")
        )) && started.contains("formsd accounts sign-in-link"),
        "serve says where the dashboard is and how to sign in: {started}"
    );

    let status = server.terminate().await;
    assert!(status.success(), "exit {status:?}\n{}", server.logs.text());
    assert!(
        !data.join("pgdata/postmaster.pid").exists(),
        "serve stops the cluster it started:\n{}",
        server.logs.text()
    );

    // The data survives a restart.
    let mut server = Formsd::start(&serve).await;
    let base = server.http_base();
    let reply = send(
        client
            .get(format!("{base}/forms"))
            .header("x-api-key", &key),
    )
    .await;
    assert_eq!(reply.ok(200)["forms"][0]["title"], "Embedded");

    // kill -9 leaves the cluster running; the next formsd takes it over and stops it
    // on its own clean exit: no stray server per crash.
    server.child.start_kill().expect("SIGKILL");
    let _ = server.child.wait().await;
    assert!(
        data.join("pgdata/postmaster.pid").exists(),
        "the cluster outlives a killed formsd"
    );
    let mut server = Formsd::start(&serve).await;
    let reply = send(
        client
            .get(format!("{}/forms", server.http_base()))
            .header("x-api-key", &key),
    )
    .await;
    assert_eq!(reply.ok(200)["forms"][0]["title"], "Embedded");
    assert!(
        server.logs.wait_for("taking it over").await,
        "{}",
        server.logs.text()
    );
    assert!(server.terminate().await.success());
    assert!(
        !data.join("pgdata/postmaster.pid").exists(),
        "the formsd that took the cluster over stops it:\n{}",
        server.logs.text()
    );

    // A cluster that trusted its socket (made by an earlier formsd run as root) is
    // given the password and SCRAM at the next start.
    if nix::unistd::geteuid().is_root() {
        let hba = data.join("pgdata/pg_hba.conf");
        let text = std::fs::read_to_string(&hba).expect("pg_hba.conf");
        std::fs::write(&hba, text.replace("scram-sha-256", "trust")).expect("trusting hba");
        let mut server = Formsd::start(&serve).await;
        assert_password_required(&data).await;
        let reply = send(
            client
                .get(format!("{}/forms", server.http_base()))
                .header("x-api-key", &key),
        )
        .await;
        reply.ok(200);
        assert!(server.terminate().await.success());
    }
}

/// Run as root, the embedded cluster asks for the superuser's password on its socket,
/// even from its own OS user; the password is root's alone.
async fn assert_password_required(data: &std::path::Path) {
    use std::os::unix::fs::MetadataExt;
    let file = data.join("superuser.password");
    let meta = std::fs::metadata(&file).expect("superuser.password");
    assert_eq!(meta.mode() & 0o777, 0o600, "the password file is private");
    assert_eq!(meta.uid(), 0, "the password file is root's");
    let hba = std::fs::read_to_string(data.join("pgdata/pg_hba.conf")).expect("pg_hba.conf");
    assert!(
        !hba.lines()
            .any(|l| !l.trim_start().starts_with('#') && l.contains("trust")),
        "no connection is trusted:\n{hba}"
    );
    let owner = std::fs::metadata(data.join("pgdata"))
        .expect("pgdata")
        .uid();
    let user = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(owner))
        .expect("user lookup")
        .expect("the cluster's user")
        .name;
    let socket = data.join("run");
    let conninfo = format!(
        "host={} port=5432 user=postgres dbname=postgres",
        socket.display()
    );
    let psql = |password: Option<String>| {
        let mut cmd = tokio::process::Command::new("runuser");
        cmd.args([
            "-u", &user, "--", "psql", "-w", "-X", "-At", &conninfo, "-c", "SELECT 1",
        ]);
        cmd.env_remove("PGPASSWORD");
        if let Some(password) = password {
            cmd.env("PGPASSWORD", password);
        }
        cmd.output()
    };
    let without = psql(None).await.expect("running psql");
    assert!(
        !without.status.success(),
        "the cluster's OS user connected without a password"
    );
    let password = std::fs::read_to_string(&file).expect("password");
    let with = psql(Some(password.trim().to_owned()))
        .await
        .expect("running psql");
    assert!(
        with.status.success(),
        "with the password: {}",
        String::from_utf8_lossy(&with.stderr)
    );
}

#[tokio::test]
async fn core_and_edge_roles_serve_the_same_rest_api() {
    let db = TestDb::create().await;
    let mut core_command = formsd_command();
    core_command.env("RUST_LOG", "info,forms=debug");
    let core = Formsd::start_with(core_command, &serve_args(&db.url, &["--role", "core"])).await;
    assert!(core.http_addr.is_none());
    let edge = Formsd::start(&edge_serve_args(&core.grpc_url(), &[])).await;
    assert!(edge.grpc_addr.is_none());
    let app = TestApp::from_parts(edge, db).await;
    let key = app.new_key(PRO, ALL).await;
    let k = key.key.as_str();

    let form = app
        .create_form(
            k,
            &json!({"title": "Split", "settings": {"max_responses": 3},
                    "fields": [{"type": "email", "label": "E", "required": true}]}),
        )
        .await;
    assert_eq!(form["status"], "draft");
    assert_eq!(form["settings"], json!({"max_responses": 3}));
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    let got = app.get(&path, k).await;
    assert_eq!(got.ok(200)["form"], form);
    // The edge's request id reaches the core process: its lines of the call carry it.
    let request_id = got.header("x-request-id").to_owned();
    let of_call = core.logs.logged(&request_id, "caller identified").await;
    assert!(
        of_call
            .iter()
            .any(|l| l["fields"]["message"] == "caller identified"),
        "{request_id}: {}",
        core.logs.text()
    );
    assert!(!app.logs().logged(&request_id, "request").await.is_empty());
    let list = app.get("/forms?per_page=500", k).await;
    assert_eq!(
        list.ok(200)["pagination"],
        json!({"total": 1, "page": 1, "per_page": 100, "total_pages": 1})
    );
    let updated = app.put(&path, k, &json!({"status": "published"})).await;
    assert!(updated.ok(200)["form"]["published_at"].is_string());

    // Refusals of the edge are accounted by the remote core too.
    send(
        app.request(Method::POST, "/forms")
            .header("x-api-key", k)
            .header("content-type", "text/plain")
            .body("x"),
    )
    .await
    .error(415, "UNSUPPORTED_MEDIA_TYPE");
    send(
        app.request(Method::POST, "/forms")
            .header("x-api-key", k)
            .header("content-type", "application/json")
            .body("{"),
    )
    .await
    .error(422, "VALIDATION_ERROR");
    app.get("/nowhere", k).await.error(404, "NOT_FOUND");
    send(app.request(Method::GET, "/forms"))
        .await
        .error(401, "UNAUTHENTICATED");
    app.get("/forms", "fsk_0123456789abcdef_nope")
        .await
        .error(401, "KEY_INVALID");
    let read = app.key_for(&key.account, PRO, READ).await;
    app.delete(&path, &read.key)
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    assert_eq!(app.delete(&path, k).await.status, 204);

    let usage = app.get("/usage", k).await;
    let usage = usage.ok(200);
    assert_eq!(usage["key_id"], key.key_id.to_string());
    // create, get, list, put, 415, 422, 404, delete, and this one.
    assert_eq!(usage["total_requests"], 9);
    assert_eq!(usage["total_errors"], 3);
    drop(core);
}

#[tokio::test]
async fn edge_without_its_core_answers_503() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let edge = Formsd::start(&edge_serve_args(&format!("http://127.0.0.1:{port}"), &[])).await;
    let reply = send(
        http_client()
            .get(format!("{}/forms", edge.http_base()))
            .header("x-api-key", "fsk_0123456789abcdef_whatever"),
    )
    .await;
    assert_eq!(reply.status, 503, "{}", reply.text);
    assert_eq!(reply.body["success"], false);
    assert_eq!(reply.body["error"]["code"], "SERVICE_UNAVAILABLE");
    assert_uuid(reply.header("x-request-id"));
    assert!(!reply.text.contains("whatever"));
}

#[tokio::test]
async fn serve_refuses_empty_or_short_secrets_without_echoing_them() {
    let db = TestDb::create().await;
    let refused = |env: &'static [(&'static str, &'static str)], extra: &'static [&'static str]| {
        let url = db.url.clone();
        async move {
            let mut cmd = formsd_command();
            cmd.envs(env.iter().copied())
                .args(serve_args(&url, extra))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let out = tokio::time::timeout(Duration::from_secs(60), cmd.output())
                .await
                .expect("formsd stops by itself")
                .expect("running formsd");
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(!out.status.success(), "started with {env:?} {extra:?}");
            assert!(!stdout.contains("\"ready\""), "reported ready: {stdout}");
            String::from_utf8_lossy(&out.stderr).into_owned()
        }
    };
    // Set but empty in the environment: refused, not "admin open to an empty header".
    let stderr = refused(&[("FORMS_ADMIN_TOKEN", "")], &[]).await;
    assert!(stderr.contains("--admin-token"), "{stderr}");
    let stderr = refused(&[("FORMS_SESSION_HS256_SECRET", "")], &[]).await;
    assert!(stderr.contains("--session-hs256-secret"), "{stderr}");
    // Short: refused, and the value is not echoed.
    let stderr = refused(&[], &["--admin-token", "hunter2-short-token"]).await;
    assert!(stderr.contains("at least 32 bytes"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "secret echoed: {stderr}");
    // Long enough: serves.
    let mut app = TestApp::spawn_with(&["--admin-token", &"k".repeat(32)]).await;
    assert!(app.server.terminate().await.success());
}

#[tokio::test]
async fn sigterm_under_load_finishes_what_is_in_flight_and_loses_nothing() {
    use crate::fixtures::{contact_answers, contact_fields, field_ids, published_form};
    use std::sync::{Arc, Mutex};
    let mut app = TestApp::spawn_with(&["--pro-rate-limit", "1000000"]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let fields = field_ids(&form);
    let url = format!(
        "{}/forms/{}/responses",
        app.http_base,
        form["id"].as_str().expect("form id")
    );
    // Eight writers post until the server stops taking requests; every 201 is kept.
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let other_statuses = Arc::new(Mutex::new(Vec::<u16>::new()));
    let mut writers = tokio::task::JoinSet::new();
    for w in 0..8 {
        let (client, url, key) = (app.client.clone(), url.clone(), key.clone());
        let body = json!({"answers": contact_answers(&fields, w)});
        let (acknowledged, other_statuses) = (acknowledged.clone(), other_statuses.clone());
        writers.spawn(async move {
            loop {
                let sent = client
                    .post(&url)
                    .header("x-api-key", &key)
                    .json(&body)
                    .send()
                    .await;
                let Ok(reply) = sent else { return };
                let status = reply.status().as_u16();
                let Ok(reply) = reply.json::<Value>().await else {
                    return;
                };
                match reply["data"]["response"]["id"].as_str() {
                    Some(id) if status == 201 => acknowledged.lock().expect("lock").push(id.into()),
                    _ => other_statuses.lock().expect("lock").push(status),
                }
            }
        });
    }
    // Under way: some responses acknowledged before the signal.
    crate::fixtures::eventually("writers under way", Duration::from_secs(30), || async {
        (acknowledged.lock().expect("lock").len() >= 20).then_some(())
    })
    .await;
    let status = app.server.terminate().await;
    assert!(status.success(), "exit {status:?}\n{}", app.logs().text());
    while writers.join_next().await.is_some() {}

    let acknowledged = acknowledged.lock().expect("lock").clone();
    let ids: Vec<uuid::Uuid> = acknowledged
        .iter()
        .map(|id| id.parse().expect("uuid"))
        .collect();
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM responses WHERE id = ANY($1)")
        .bind(&ids)
        .fetch_one(&app.pool)
        .await
        .expect("counting");
    assert_eq!(stored, i64::try_from(ids.len()).expect("count"));
    let others = other_statuses.lock().expect("lock").clone();
    assert!(
        others.iter().all(|s| *s < 500),
        "server errors while stopping: {others:?}"
    );
}

#[tokio::test]
async fn a_key_without_scopes_reads_usage_and_nothing_else() {
    let app = TestApp::spawn().await;
    let out = run_ok(&[
        "--database-url",
        &app.db.url,
        "keys",
        "create",
        "--account",
        "usage-only",
        "--scopes",
        "",
        "--json",
    ])
    .await;
    let created: Value = serde_json::from_str(out.trim()).expect("JSON");
    let key = created["key"].as_str().expect("key");
    let usage = app.get("/usage", key).await;
    assert_eq!(usage.ok(200)["key_id"], created["key_id"]);
    for path in [
        "/forms",
        "/forms/00000000-0000-0000-0000-000000000000/responses",
    ] {
        app.get(path, key).await.error(403, "INSUFFICIENT_SCOPE");
    }
    app.post("/forms", key, &json!({"title": "No"}))
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    // Listed with no scopes.
    let listed = run_ok(&[
        "--database-url",
        &app.db.url,
        "keys",
        "list",
        "--account",
        "usage-only",
        "--json",
    ])
    .await;
    let listed: Value = serde_json::from_str(listed.trim()).expect("JSON");
    assert_eq!(listed[0]["scopes"], json!([]));
}

#[tokio::test]
async fn metrics_count_requests_by_route_on_their_own_listener() {
    let app = TestApp::spawn_with(&["--metrics-addr", "127.0.0.1:0"]).await;
    let metrics_addr = app.server.metrics_addr.expect("metrics address reported");
    assert_ne!(Some(metrics_addr), app.server.http_addr);
    let key = app.key(PRO, ALL).await;
    let form = app.create_form(&key, &json!({"title": "Counted"})).await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    for _ in 0..3 {
        app.get(&path, &key).await.ok(200);
    }
    app.get("/nowhere", &key).await.error(404, "NOT_FOUND");
    let text = metrics_text(&app).await;
    // By route template, never by id.
    assert!(
        text.contains(
            r#"formsd_http_requests_total{method="GET",route="/api/v1/forms/{id}",status="200"} 3"#
        ),
        "{text}"
    );
    assert!(!text.contains(form["id"].as_str().expect("id")), "{text}");
    assert!(text.contains(r#"route="unmatched",status="404""#), "{text}");
    assert!(
        text.contains("formsd_http_request_duration_seconds_bucket"),
        "{text}"
    );
    assert!(
        text.contains(r#"formsd_db_pool_connections{state="idle"}"#),
        "{text}"
    );
    // Not on the public port.
    let public = app
        .client
        .get(format!(
            "{}/metrics",
            app.http_base.trim_end_matches("/api/v1")
        ))
        .send()
        .await
        .expect("public port");
    assert_ne!(public.status(), 200);
    let body = public.text().await.expect("text");
    assert!(!body.contains("formsd_http_requests_total"), "{body}");
}

#[tokio::test]
async fn metrics_count_grpc_calls_refusals_responses_and_the_delivery_backlog() {
    let app = TestApp::spawn_with(&[
        "--metrics-addr",
        "127.0.0.1:0",
        "--pro-rate-limit",
        "2",
        "--webhook-allow-private",
    ])
    .await;
    let key = app.key(::forms::accounts::Plan::Enterprise, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "Counted", "fields": [{"type": "short_text", "label": "Name"}]}),
        )
        .await;
    let id = form["id"].as_str().expect("id");
    let field = form["fields"][0]["id"].as_str().expect("field id");
    app.put(
        &format!("/forms/{id}"),
        &key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    // Nobody listens on the discard port: the delivery fails and waits for its retry.
    app.post(
        &format!("/forms/{id}/webhooks"),
        &key,
        &json!({"name": "down", "url": "http://127.0.0.1:9/hook", "events": ["form.submitted"]}),
    )
    .await
    .ok(201);
    app.post(
        &format!("/forms/{id}/responses"),
        &key,
        &json!({"answers": {field: "Ada"}}),
    )
    .await
    .ok(201);
    app.get(&format!("/forms/{}", uuid::Uuid::new_v4()), &key)
        .await
        .error(404, "NOT_FOUND");
    // A key over its limit.
    let limited = app.key(PRO, ALL).await;
    for _ in 0..2 {
        app.get("/usage", &limited).await.ok(200);
    }
    app.get("/usage", &limited).await.error(429, "RATE_LIMITED");

    let text = metrics_text(&app).await;
    let value =
        |series: &str| sample(&text, series).unwrap_or_else(|| panic!("no {series} in:\n{text}"));
    assert_eq!(
        value(
            r#"formsd_grpc_calls_total{method="/forms.v1.FormsService/GetForm",code="NotFound"}"#
        ),
        1.0
    );
    assert_eq!(
        value(
            r#"formsd_grpc_calls_total{method="/forms.v1.ResponsesService/CreateResponse",code="Ok"}"#
        ),
        1.0
    );
    assert!(
        text.contains("formsd_grpc_call_duration_seconds_bucket"),
        "{text}"
    );
    assert_eq!(value(r#"formsd_responses_created_total{via="api"}"#), 1.0);
    assert_eq!(
        value(r#"formsd_rate_limit_refusals_total{limit="key"}"#),
        1.0
    );
    assert_eq!(value("formsd_webhook_deliveries_pending"), 1.0);
    assert!(value("formsd_webhook_oldest_pending_age_seconds") >= 0.0);
}

/// The resident memory of a process, in bytes (Linux).
fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let kb: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .expect("VmRSS");
    kb * 1024
}

/// `count` GETs without a key (401: recorded by the HTTP and gRPC histograms, no
/// database work), 16 at a time.
async fn unauthorised_requests(app: &std::sync::Arc<TestApp>, count: usize) {
    let mut senders = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let app = app.clone();
        senders.spawn(async move {
            for _ in 0..count / 16 {
                let reply = app.request(Method::GET, "/forms").send().await;
                assert_eq!(reply.map(|r| r.status().as_u16()).ok(), Some(401));
            }
        });
    }
    while let Some(done) = senders.join_next().await {
        done.expect("sender");
    }
}

#[tokio::test]
async fn memory_stays_flat_with_metrics_on_and_nobody_scraping() {
    // Histogram samples wait in the recorder until its upkeep folds them into buckets
    // (metrics-rs/metrics#467): a process that nobody scrapes must run it itself, or it
    // grows by every request it serves.
    let app = TestApp::spawn_with(&[
        "--metrics-addr",
        "127.0.0.1:0",
        "--auth-failures-per-minute",
        "1000000000",
    ]);
    let app = std::sync::Arc::new(app.await);
    let pid = app.server.child.id().expect("pid");
    // Warm up: connections, buffers and the allocator's arenas reach their size.
    unauthorised_requests(&app, 10_000).await;
    let before = resident_bytes(pid);
    unauthorised_requests(&app, 48_000).await;
    // The upkeep runs every 5 s: wait for one to have run since the last request.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut after = resident_bytes(pid);
    while after > before + 1024 * 1024 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        after = resident_bytes(pid);
    }
    eprintln!("resident: {before} bytes, then {after} bytes after 48,000 requests");
    assert!(
        after <= before + 1024 * 1024,
        "resident memory grew from {before} to {after} bytes over 48,000 requests"
    );
}

//! PostgreSQL blinking under a running `formsd`: through a TCP proxy the test can cut,
//! requests are answered 503 SERVICE_UNAVAILABLE (never 500) with Retry-After, at once
//! once `GET /readyz` says unavailable (not after the pool's acquire deadline), and both
//! recover by themselves when the database is back. A server of the test's own that is
//! stopped (its connections refused) is an outage at once, for every request; one that
//! does not answer at start is waited for.

use crate::fixtures::{PgProxy, eventually, formsd_cli};
use crate::harness::*;
use crate::replication::{Single, require};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

async fn status_of(app: &TestApp, path: &str, key: &str) -> (u16, String) {
    let reply = app
        .client
        .get(format!("{}{path}", app.http_base))
        .header("x-api-key", key)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .expect("an answer, not a hang");
    (
        reply.status().as_u16(),
        reply.text().await.unwrap_or_default(),
    )
}

async fn ready(app: &TestApp) -> u16 {
    let origin = app.http_base.trim_end_matches("/api/v1");
    app.client
        .get(format!("{origin}/readyz"))
        .send()
        .await
        .expect("readyz answers")
        .status()
        .as_u16()
}

/// Once the database is back: requests are served and readiness says so again by
/// themselves, and the outage was no internal failure (every line, once the instance
/// has stopped).
async fn recovered(app: &mut TestApp, key: &str) {
    eventually("requests served again", Duration::from_secs(30), || async {
        (status_of(app, "/forms", key).await.0 == 200).then_some(())
    })
    .await;
    eventually("ready again", Duration::from_secs(20), || async {
        (ready(app).await == 200).then_some(())
    })
    .await;
    let logs = app.logs_to_end().await;
    assert!(!logs.contains("internal failure"), "{logs}");
}

/// `formsd` with `extra` flags on a database of its own reached through a proxy;
/// `None` (the test is skipped) when the test server is not reached over TCP.
async fn behind_proxy(extra: &[&str]) -> Option<(PgProxy, TestApp)> {
    let db = TestDb::create().await;
    let Some((proxy, proxied)) = PgProxy::in_front_of(&db.url).await else {
        require(&format!(
            "the test database is not reached over TCP ({})",
            db.url
        ));
        return None;
    };
    let server = Formsd::start(&serve_args(&proxied, extra)).await;
    Some((proxy, TestApp::from_parts(server, db).await))
}

#[tokio::test]
async fn a_database_outage_is_503_and_recovers() {
    // A long acquire deadline: answers that do not wait for it are told apart by far.
    let acquire = Duration::from_secs(10);
    let Some((proxy, mut app)) = behind_proxy(&["--db-acquire-timeout", "10s"]).await else {
        return;
    };
    let key = app.key(PRO, ALL).await;
    assert_eq!(status_of(&app, "/forms", &key).await.0, 200);
    assert_eq!(ready(&app).await, 200);

    proxy.cut();
    let started = Instant::now();
    let (status, body) = status_of(&app, "/forms", &key).await;
    eprintln!(
        "answer during the outage after {:?}: {status}",
        started.elapsed()
    );
    assert_eq!(status, 503, "{body}\n{}", app.logs().text());
    assert!(body.contains("\"code\":\"SERVICE_UNAVAILABLE\""), "{body}");
    eventually(
        "readyz says unavailable",
        Duration::from_secs(20),
        || async { (ready(&app).await == 503).then_some(()) },
    )
    .await;
    // Readiness knows: every request is refused at once, with Retry-After; more of them
    // than the pool has connections, so that none is answered by finding its pooled
    // connection dead.
    for _ in 0..8 {
        let started = Instant::now();
        let reply = send(app.request(Method::GET, "/forms").header("x-api-key", &key)).await;
        let waited = started.elapsed();
        assert!(
            waited < acquire / 3,
            "refused after {waited:?}: it waited for a connection ({acquire:?} at most)"
        );
        assert_eq!(reply.status, 503, "{}", reply.text);
        assert_eq!(reply.body["error"]["code"], "SERVICE_UNAVAILABLE");
        assert!(reply.header_u64("retry-after") >= 1);
        assert_uuid(reply.header("x-request-id"));
    }
    proxy.restore();
    recovered(&mut app, &key).await;
}

/// The key cache is trusted while its LISTEN connection hears every change. A link that
/// dies silently (no reset, no FIN: here frozen by the proxy) must be noticed by the
/// listener's own check within about a second, so that a key revoked meanwhile is
/// refused long before the cache's 60 s age limit.
#[tokio::test]
async fn a_silently_dead_key_listener_does_not_keep_a_revoked_key() {
    let Some((proxy, app)) = behind_proxy(&[]).await else {
        return;
    };
    let key = app.new_key(PRO, ALL).await;
    assert_eq!(status_of(&app, "/forms", &key.key).await.0, 200);
    let port: i32 = eventually(
        "the key listener's connection",
        Duration::from_secs(20),
        || async {
            sqlx::query_scalar(
                "SELECT client_port FROM pg_stat_activity
              WHERE datname = current_database() AND application_name = $1",
            )
            .bind(forms::KEY_LISTENER_APPLICATION_NAME)
            .fetch_optional(&app.pool)
            .await
            .expect("pg_stat_activity")
        },
    )
    .await;
    assert_eq!(status_of(&app, "/forms", &key.key).await.0, 200, "cached");
    assert!(proxy.freeze(u16::try_from(port).expect("port")));

    formsd_cli(&app.db.url, &["keys", "revoke", &key.key_id.to_string()]).await;
    eventually(
        "the revoked key refused",
        Duration::from_secs(20),
        || async { (status_of(&app, "/forms", &key.key).await.0 == 401).then_some(()) },
    )
    .await;
}

/// The service talks only to a server that takes writes (core/db/primary.rs): when its
/// database turns read-only, as a primary being demoted does, readiness says
/// unavailable and every request, a read too, is refused 503 with Retry-After rather
/// than answered by a server that may be behind; all is served again once it takes
/// writes. At start, a read-only server is refused with the reason.
#[tokio::test]
async fn a_database_that_takes_no_writes_is_not_used() {
    let mut app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    assert_eq!(status_of(&app, "/forms", &key).await.0, 200);

    // Every session of the database, formsd's open ones included, turns read-only.
    set_read_only(&app.db.name, true).await;
    eventually(
        "readyz says unavailable",
        Duration::from_secs(20),
        || async { (ready(&app).await == 503).then_some(()) },
    )
    .await;
    // And keeps saying so through several of its checks (not merely while the ended
    // sessions were being replaced).
    for _ in 0..12 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(ready(&app).await, 503, "ready on a read-only database");
    }
    let reply = send(app.request(Method::GET, "/forms").header("x-api-key", &key)).await;
    assert_eq!(reply.status, 503, "{}", reply.text);
    assert_eq!(reply.body["error"]["code"], "SERVICE_UNAVAILABLE");
    assert!(reply.header_u64("retry-after") >= 1);

    // Another instance does not start on it: it waits for a server that takes writes,
    // and gives up with the reason when --db-start-timeout is over.
    let refused = formsd_command()
        .args(serve_args(&app.db.url, &["--db-start-timeout", "2s"]))
        .output()
        .await
        .expect("running formsd");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("no database server takes writes"),
        "{stderr}"
    );
    assert!(stderr.contains("read-only"), "{stderr}");

    set_read_only(&app.db.name, false).await;
    eventually("requests served again", Duration::from_secs(30), || async {
        (status_of(&app, "/forms", &key).await.0 == 200).then_some(())
    })
    .await;
    let logs = app.logs_to_end().await;
    assert!(!logs.contains("internal failure"), "{logs}");
}

/// Makes `database` read-only for every session (new ones by its setting; open ones
/// are ended, and reconnect read-only), or writable again.
async fn set_read_only(database: &str, read_only: bool) {
    let mut admin = admin_connection().await;
    let setting = match read_only {
        true => "SET default_transaction_read_only = on",
        false => "RESET default_transaction_read_only",
    };
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE \"{database}\" {setting}"
    )))
    .execute(&mut admin)
    .await
    .expect("setting the database read-only");
    sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(database)
    .execute(&mut admin)
    .await
    .expect("ending its sessions");
    let _ = sqlx::Connection::close(admin).await;
}

/// A pool busy with requests that wait for a lock is no outage: readiness keeps saying
/// ready (and the gate keeps admitting requests) while the database answers within the
/// acquire deadline, as long as a request itself would wait for a connection.
#[tokio::test]
async fn a_busy_pool_is_no_outage() {
    let app = TestApp::spawn_with(&["--db-acquire-timeout", "10s"]).await;
    let key = app.key(PRO, ALL).await;
    let form = crate::fixtures::published_form(
        &app,
        &key,
        crate::fixtures::contact_fields(),
        serde_json::Value::Null,
    )
    .await;
    let id = form["id"].as_str().expect("id").to_owned();
    assert_eq!(ready(&app).await, 200);

    // Changes of the form wait for its row, each holding a pooled connection: more of
    // them than the pool has connections.
    let lock = crate::fixtures::lock_form(&app.pool, &id).await;
    let changes: Vec<_> = (0..6)
        .map(|n| {
            let (client, base, key, id) = (
                app.client.clone(),
                app.http_base.clone(),
                key.clone(),
                id.clone(),
            );
            tokio::spawn(async move {
                let body = serde_json::json!({"settings": {"max_responses": 100 + n}});
                let reply = client
                    .put(format!("{base}/forms/{id}"))
                    .header("x-api-key", key)
                    .json(&body)
                    .send()
                    .await
                    .expect("an answer");
                reply.status().as_u16()
            })
        })
        .collect();
    eventually(
        "every pooled connection waits for the form's row",
        Duration::from_secs(20),
        || async {
            let waiting: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_stat_activity
                  WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
            .fetch_one(&app.pool)
            .await
            .expect("pg_stat_activity");
            (waiting >= 4).then_some(())
        },
    )
    .await;
    // Longer than a probe's interval and its former one-second deadline together; a
    // read sent meanwhile waits for a connection, and is served.
    let held = Instant::now();
    let mut read = None;
    while held.elapsed() < Duration::from_secs(3) {
        assert_eq!(ready(&app).await, 200, "{}", app.logs().text());
        if read.is_none() && held.elapsed() > Duration::from_millis(2200) {
            let (client, base, key) = (app.client.clone(), app.http_base.clone(), key.clone());
            read = Some(tokio::spawn(async move {
                let forms = client.get(format!("{base}/forms")).header("x-api-key", key);
                let reply = forms.send().await.expect("an answer");
                (
                    reply.status().as_u16(),
                    reply.text().await.unwrap_or_default(),
                )
            }));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(lock);
    for change in changes {
        assert_eq!(change.await.expect("change"), 200);
    }
    let (status, body) = read.expect("a read sent").await.expect("read");
    assert_eq!(status, 200, "{body}");
    assert_eq!(ready(&app).await, 200);
}

/// PostgreSQL stopped under `formsd` while clients use it (a server of the test's own,
/// over TCP, as the local one of a small installation): its connections are refused,
/// and a refused connection is an outage at once, for requests too. Every answer, from
/// before the stop until well after it, comes within a second: 200 before, 503 with
/// Retry-After after, whether or not readiness has looked since (with a 10 s acquire
/// deadline, a request that waited for a connection would be told apart by far); all is
/// served again once it is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stopped_database_is_an_outage_at_once() {
    let Some(single) = Single::start("forms").await else {
        require("no PostgreSQL programs (initdb) on this machine");
        return;
    };
    let db = TestDb::elsewhere("forms", single.server.url("forms"));
    let mut app = TestApp::spawn_on(db, &["--db-acquire-timeout", "10s"]).await;
    let key = app.key(PRO, ALL).await;
    assert_eq!(status_of(&app, "/forms", &key).await.0, 200);

    // Clients reading without pause, each answer's status and time kept.
    let stopped = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (client, base, key) = (app.client.clone(), app.http_base.clone(), key.clone());
            let (stopped, served) = (stopped.clone(), served.clone());
            tokio::spawn(async move {
                let mut answers = Vec::new();
                // Until this client has seen the outage for a while.
                let mut unavailable = 0;
                while unavailable < 10 {
                    let started = Instant::now();
                    let reply = client
                        .get(format!("{base}/forms"))
                        .header("x-api-key", &key)
                        .timeout(Duration::from_secs(30))
                        .send()
                        .await
                        .expect("an answer, not a hang");
                    let (status, waited) = (reply.status().as_u16(), started.elapsed());
                    let retry_after = reply.headers().contains_key("retry-after");
                    let body = reply.text().await.unwrap_or_default();
                    if status == 200 {
                        served.fetch_add(1, Ordering::SeqCst);
                    }
                    if stopped.load(Ordering::SeqCst) && status == 503 {
                        unavailable += 1;
                        assert!(retry_after, "a 503 without Retry-After");
                        assert!(body.contains("\"code\":\"SERVICE_UNAVAILABLE\""), "{body}");
                    }
                    answers.push((status, waited));
                }
                answers
            })
        })
        .collect();
    eventually("traffic served", Duration::from_secs(20), || async {
        (served.load(Ordering::SeqCst) >= 20).then_some(())
    })
    .await;
    tokio::task::block_in_place(|| single.servers.pg_ctl(&single.server, "stop"));
    stopped.store(true, Ordering::SeqCst);
    let mut answers = Vec::new();
    for client in clients {
        answers.extend(client.await.expect("a client"));
    }
    let slowest = answers.iter().map(|(_, waited)| *waited).max();
    eprintln!(
        "{} answers around the stop, slowest {slowest:?}: {answers:?}",
        answers.len()
    );
    for (status, waited) in &answers {
        assert!(
            *status == 200 || *status == 503,
            "{status}\n{}",
            app.logs().text()
        );
        assert!(
            *waited < Duration::from_secs(1),
            "an answer after {waited:?} ({status}): a refused connection is an outage at once\n\
             all answers: {answers:?}\n{}",
            app.logs().text()
        );
    }
    assert_eq!(ready(&app).await, 503);

    single.servers.pg_ctl(&single.server, "start");
    recovered(&mut app, &key).await;
}

/// A database that does not answer at start (a server busy on a loaded machine, one
/// starting, a network slow to come up: here its connections accepted and never
/// answered, longer than the acquire deadline) is waited for with back-off, as long as
/// `--db-start-timeout` allows, saying what formsd waits for; formsd serves once it
/// answers.
#[tokio::test]
async fn a_database_slow_at_start_is_waited_for() {
    let db = TestDb::create().await;
    let Some((proxy, proxied)) = PgProxy::in_front_of(&db.url).await else {
        require(&format!(
            "the test database is not reached over TCP ({})",
            db.url
        ));
        return;
    };
    proxy.cut();
    let args = serve_args(&proxied, &[]);
    let starting = tokio::spawn(async move { Formsd::start(&args).await });
    // Silent for twice the acquire deadline (the former patience at start), unless
    // formsd gave up before.
    let silent = Instant::now();
    while silent.elapsed() < 2 * forms::db::ACQUIRE_TIMEOUT && !starting.is_finished() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    proxy.restore();
    let server = match starting.await {
        Ok(server) => server,
        Err(failed) => panic!("formsd did not wait for the database: {failed}"),
    };
    let logs = server.logs.text();
    assert!(
        logs.contains("waiting for a database server that takes writes"),
        "{logs}"
    );
    let app = TestApp::from_parts(server, db).await;
    let key = app.key(PRO, ALL).await;
    assert_eq!(status_of(&app, "/forms", &key).await.0, 200);
}

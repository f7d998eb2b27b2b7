//! Failover without losing an acknowledged response (the book, "Read replicas and failover").
//!
//! A primary with a synchronous standby, made here; `formsd` is given three hosts: one
//! where nothing listens, the standby (read-only), and the primary, so it must find the
//! writable one itself. Writers create responses as clients would: most with an
//! Idempotency-Key, retried on every failure until acknowledged; some without, never
//! retried (a client without a key cannot know whether a failed create was stored).
//! Then the primary's postmaster is killed (`kill -9`), and after a while the standby is
//! promoted (`pg_ctl promote`). Counted on the promoted server: acknowledged responses
//! lost (must be 0), responses stored twice (must be 0); seen by the writers: every
//! refusal during the outage a 503 SERVICE_UNAVAILABLE with Retry-After, never a 500,
//! never a broken or hanging request; `formsd` writes again by itself.
//!
//! The phases last 1.5 s of writes, 1 s without a primary and 2 s after, unless
//! `FORMS_FAILOVER_SECS=before,outage,after` says otherwise (`scripts/failover.sh`); the
//! figures are printed, not asserted.

use crate::fixtures::eventually;
use crate::harness::*;
use crate::replication::Pair;
use forms::accounts::{Plan, Scopes, store};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Writers with an Idempotency-Key (retried until acknowledged), and without.
const KEYED_WRITERS: usize = 6;
const KEYLESS_WRITERS: usize = 2;
/// A writer's pause before its retry. Shorter than the Retry-After of 1 s that clients
/// are asked for, so that the moment writes resume is seen to a tenth of a second.
const RETRY_PAUSE: Duration = Duration::from_millis(100);
/// Longest a request may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(20);

/// What formsd logs as it follows the database (printed with the figures).
const FOLLOWED: &[&str] = &[
    "does not take writes now",
    "no database server takes writes yet",
    "writing to another database server now",
    "takes writes again",
    "not ready",
    "again: ready",
];

/// How long each phase lasts.
struct Phases {
    before: Duration,
    outage: Duration,
    after: Duration,
}

fn phases() -> Phases {
    let secs: Vec<f64> = std::env::var("FORMS_FAILOVER_SECS")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_default();
    let [before, outage, after] = secs[..] else {
        return Phases {
            before: Duration::from_millis(1500),
            outage: Duration::from_secs(1),
            after: Duration::from_secs(2),
        };
    };
    Phases {
        before: Duration::from_secs_f64(before),
        outage: Duration::from_secs_f64(outage),
        after: Duration::from_secs_f64(after),
    }
}

/// A create acknowledged with 201.
struct Ack {
    marker: String,
    id: String,
    at: Instant,
    replayed: bool,
}

/// What the writers saw.
#[derive(Default)]
struct Tally {
    acked: Vec<Ack>,
    /// 503 SERVICE_UNAVAILABLE answers, and those of them without a Retry-After.
    unavailable: usize,
    without_retry_after: usize,
    /// Anything else that is not a 201: a 500, another status, a broken connection.
    failures: Vec<String>,
    /// Keyless creates that failed (not retried: stored or not, nobody knows).
    abandoned: usize,
    slowest: Duration,
}

impl Tally {
    /// Counts one answer; says whether it acknowledged the create.
    fn record(&mut self, reply: Answer, started: Instant, marker: &str, keyed: bool) -> bool {
        self.slowest = self.slowest.max(started.elapsed());
        match reply {
            Ok((201, headers, text)) => {
                let body: Value = serde_json::from_str(&text).unwrap_or_default();
                let id = body["data"]["response"]["id"].as_str().unwrap_or_default();
                self.acked.push(Ack {
                    marker: marker.to_owned(),
                    id: id.to_owned(),
                    at: Instant::now(),
                    replayed: headers.contains_key("idempotent-replayed"),
                });
                return true;
            }
            Ok((503, headers, text)) => {
                self.unavailable += 1;
                let retry_after = headers
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
                if retry_after.is_none_or(|secs| secs < 1) {
                    self.without_retry_after += 1;
                }
                if !text.contains("\"code\":\"SERVICE_UNAVAILABLE\"") {
                    self.failures.push(format!("503 {text}"));
                }
            }
            Ok((status, _, text)) => self.failures.push(format!("{status} {text}")),
            Err(error) => self.failures.push(format!("no answer: {error}")),
        }
        if !keyed {
            self.abandoned += 1;
        }
        false
    }
}

/// Where and as whom the writers write.
#[derive(Clone)]
struct Target {
    client: reqwest::Client,
    url: String,
    key: String,
    field: String,
}

/// Answer to one create: status, headers and body, or why there was none.
type Answer = Result<(u16, reqwest::header::HeaderMap, String), String>;

/// Sends one create marked `marker`; says what came back and when it was sent.
async fn create(target: &Target, marker: &str, idempotency_key: Option<&str>) -> (Answer, Instant) {
    let mut request = target
        .client
        .post(&target.url)
        .header("x-api-key", &target.key)
        .timeout(HANG)
        .json(&json!({"answers": {target.field.clone(): marker}}));
    if let Some(key) = idempotency_key {
        request = request.header("idempotency-key", key);
    }
    let started = Instant::now();
    let answer = match request.send().await {
        Ok(reply) => {
            let status = reply.status().as_u16();
            let headers = reply.headers().clone();
            let text = reply.text().await.unwrap_or_default();
            Ok((status, headers, text))
        }
        Err(error) => Err(error.to_string()),
    };
    (answer, started)
}

/// Creates responses until `stop`; a keyed writer retries each until it is acknowledged.
async fn writer(target: Target, keyed: bool, stop: Arc<AtomicBool>, tally: Arc<Mutex<Tally>>) {
    while !stop.load(Ordering::SeqCst) {
        let marker = Uuid::new_v4().to_string();
        let idempotency_key = Uuid::new_v4().to_string();
        loop {
            let key = keyed.then_some(idempotency_key.as_str());
            let (answer, started) = create(&target, &marker, key).await;
            let acked = tally
                .lock()
                .expect("tally")
                .record(answer, started, &marker, keyed);
            if acked {
                break;
            }
            // A client pauses after a failure, whether it retries or not.
            tokio::time::sleep(RETRY_PAUSE).await;
            if !keyed {
                break;
            }
        }
    }
}

/// A published form of one required text field, whose answer marks each create.
pub async fn marker_form(client: &reqwest::Client, base: &str, key: &str) -> (String, String) {
    let created = send(
        client
            .post(format!("{base}/forms"))
            .header("x-api-key", key)
            .json(&json!({"title": "Failover", "fields": [
                {"type": "short_text", "label": "Marker", "required": true}
            ]})),
    )
    .await;
    let form = created.ok(201)["form"].clone();
    let id = form["id"].as_str().expect("form id").to_owned();
    let field = form["fields"][0]["id"]
        .as_str()
        .expect("field id")
        .to_owned();
    send(
        client
            .put(format!("{base}/forms/{id}"))
            .header("x-api-key", key)
            .json(&json!({"status": "published"})),
    )
    .await
    .ok(200);
    (id, field)
}

/// The port of a host that is down: every connection is closed at once. The port stays
/// taken for the test, so that no other server on this machine appears there (a free
/// port left unbound could be, and formsd would rightly write to it if it took writes).
async fn down_host() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let port = listener.local_addr().expect("its address").port();
    tokio::spawn(async move {
        while let Ok((connection, _)) = listener.accept().await {
            drop(connection);
        }
    });
    port
}

/// How the primary is lost.
#[derive(Clone, Copy, Debug)]
enum Loss {
    /// Its postmaster is killed (`kill -9`), as a crash would.
    Crash,
    /// It stops taking writes (`default_transaction_read_only`, picked up by every
    /// session at once), as a primary being demoted in a switchover does; it keeps
    /// answering, and its pooled connections stay open.
    Demotion,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crashed_primary_loses_no_acknowledged_response() {
    failover(Loss::Crash).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_demoted_primary_is_left_for_the_promoted_standby() {
    failover(Loss::Demotion).await;
}

async fn failover(loss: Loss) {
    let Some(pair) = Pair::start("forms").await else {
        crate::replication::require("no PostgreSQL programs (initdb) on this machine");
        return;
    };
    let phases = phases();
    // Nothing listens on the first host and the second is the standby: formsd must
    // find that the third takes writes.
    let url = format!(
        "postgres://postgres@127.0.0.1:{},127.0.0.1:{},127.0.0.1:{}/forms?target_session_attrs=read-write",
        down_host().await,
        pair.standby.port,
        pair.primary.port
    );
    let server = Formsd::start(&serve_args(
        &url,
        &["--enterprise-rate-limit", "1000000000"],
    ))
    .await;
    let base = server.http_base();
    let primary = sqlx::PgPool::connect(&pair.primary.url("forms"))
        .await
        .expect("the primary");
    let key = store::create_key(
        &primary,
        "failover",
        Some(Plan::Enterprise),
        &Scopes::new(ALL.iter().copied()),
        None,
    )
    .await
    .expect("a key")
    .key;
    let client = http_client();
    let (form_id, field) = marker_form(&client, &base, &key).await;
    let stored_on_primary: i64 = sqlx::query_scalar("SELECT count(*) FROM forms WHERE id = $1")
        .bind(Uuid::parse_str(&form_id).expect("uuid"))
        .fetch_one(&primary)
        .await
        .expect("counting");
    assert_eq!(
        stored_on_primary, 1,
        "written to the host that takes writes"
    );

    let target = Target {
        client,
        url: format!("{base}/forms/{form_id}/responses"),
        key,
        field: field.clone(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let writers: Vec<_> = (0..KEYED_WRITERS + KEYLESS_WRITERS)
        .map(|i| {
            let keyed = i < KEYED_WRITERS;
            tokio::spawn(writer(target.clone(), keyed, stop.clone(), tally.clone()))
        })
        .collect();
    let acked_since = |at: Instant| {
        let tally = tally.lock().expect("tally");
        tally.acked.iter().map(|a| a.at).filter(|t| *t > at).min()
    };

    tokio::time::sleep(phases.before).await;
    let acked_before = tally.lock().expect("tally").acked.len();
    assert!(acked_before > 0, "{}", server.logs.text());
    match loss {
        Loss::Crash => pair.kill_primary(),
        Loss::Demotion => {
            for statement in [
                "ALTER SYSTEM SET default_transaction_read_only = on",
                "SELECT pg_reload_conf()",
            ] {
                sqlx::raw_sql(statement)
                    .execute(&primary)
                    .await
                    .expect("making the primary read-only");
            }
        }
    }
    let lost_at = Instant::now();
    primary.close().await;
    tokio::time::sleep(phases.outage).await;
    let promoting = Instant::now();
    // pg_ctl waits for the promotion; the writers go on meanwhile.
    tokio::task::block_in_place(|| pair.promote_standby());
    let promoted = Instant::now();
    let resumed = eventually("writes resumed", Duration::from_secs(60), || async {
        acked_since(promoting)
    })
    .await;
    tokio::time::sleep(phases.after).await;
    stop.store(true, Ordering::SeqCst);
    for writer in writers {
        tokio::time::timeout(Duration::from_secs(60), writer)
            .await
            .expect("a writer finished: no request hangs")
            .expect("a writer");
    }
    // Settled: every create is answered at once, none by a connection to the former
    // primary.
    let mut settled = Tally::default();
    for _ in 0..20 {
        let marker = Uuid::new_v4().to_string();
        let (answer, started) = create(&target, &marker, None).await;
        settled.record(answer, started, &marker, false);
    }

    // Counted on the promoted standby, the primary now.
    let standby = sqlx::PgPool::connect(&pair.standby.url("forms"))
        .await
        .expect("the promoted standby");
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT id::text, answers->>$2 FROM responses WHERE form_id = $1::uuid")
            .bind(&form_id)
            .bind(&field)
            .fetch_all(&standby)
            .await
            .expect("reading the responses");
    let stored: HashSet<&str> = rows.iter().map(|(id, _)| id.as_str()).collect();
    let mut per_marker: HashMap<&str, usize> = HashMap::new();
    for (_, marker) in &rows {
        *per_marker.entry(marker.as_str()).or_default() += 1;
    }
    let tally = tally.lock().expect("tally");
    let lost: Vec<&Ack> = tally
        .acked
        .iter()
        .chain(&settled.acked)
        .filter(|a| !stored.contains(a.id.as_str()))
        .collect();
    let duplicates = per_marker.values().filter(|n| **n > 1).count();
    let acked_markers: HashSet<&str> = tally.acked.iter().map(|a| a.marker.as_str()).collect();
    let unacknowledged_stored = per_marker
        .keys()
        .filter(|m| !acked_markers.contains(*m))
        .count()
        .saturating_sub(settled.acked.len());
    let replayed = tally.acked.iter().filter(|a| a.replayed).count();
    eprintln!(
        "failover ({loss:?}): {} writers ({KEYED_WRITERS} with Idempotency-Key), {:.1} s \
         writing, primary lost, standby promoted {:.1} s later\n\
         failover ({loss:?}): acknowledged {} ({acked_before} before the loss), lost {}, \
         stored twice {duplicates}, replayed after a retry {replayed}\n\
         failover ({loss:?}): keyless creates abandoned on an error {}, of which stored \
         anyway {unacknowledged_stored}\n\
         failover ({loss:?}): 503 answers {} (without Retry-After {}), other failures {}, \
         slowest request {:.2} s\n\
         failover ({loss:?}): writes resumed {:.2} s after the loss, {:.2} s after the \
         promotion was asked for (which took {:.2} s)",
        KEYED_WRITERS + KEYLESS_WRITERS,
        phases.before.as_secs_f64(),
        promoting.duration_since(lost_at).as_secs_f64(),
        tally.acked.len(),
        lost.len(),
        tally.abandoned,
        tally.unavailable,
        tally.without_retry_after,
        tally.failures.len(),
        tally.slowest.as_secs_f64(),
        resumed.duration_since(lost_at).as_secs_f64(),
        resumed.duration_since(promoting).as_secs_f64(),
        promoted.duration_since(promoting).as_secs_f64(),
    );
    let logs = server.logs.text();
    // formsd's view of the failover, as it logged it.
    for line in logs
        .lines()
        .filter(|line| FOLLOWED.iter().any(|m| line.contains(m)))
    {
        eprintln!("failover ({loss:?}): formsd: {line}");
    }
    assert!(
        lost.is_empty(),
        "acknowledged and lost: {:?}",
        lost.iter().map(|a| &a.id).collect::<Vec<_>>()
    );
    assert_eq!(duplicates, 0, "a create stored twice");
    assert!(
        tally.failures.is_empty(),
        "not 201 nor 503: {:?}\n{logs}",
        &tally.failures[..tally.failures.len().min(5)]
    );
    assert!(tally.unavailable > 0, "no request met the outage");
    assert_eq!(tally.without_retry_after, 0, "a 503 without Retry-After");
    assert_eq!(
        (
            settled.acked.len(),
            settled.unavailable,
            settled.failures.len()
        ),
        (20, 0, 0),
        "creates once settled: {:?}",
        settled.failures
    );
    assert!(
        logs.contains("writing to another database server now"),
        "{logs}\n{}",
        pair.log(&pair.standby)
    );
}

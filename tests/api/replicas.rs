//! Read replicas (`--database-replica-url`) on a real standby made by the test
//! (`standby.rs`): a read never misses a response acknowledged before it, on either of
//! two instances, while the standby's replay is paused and resumed at random; with the
//! standby down the reads are answered all the same (by the primary), and it takes
//! reads again once back; and the isolation matrix holds with a replica configured.

use crate::fixtures::{
    contact_answers, contact_fields, eventually, field_ids, metrics_text, published_form,
};
use crate::harness::*;
use crate::standby::Pair;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use sqlx::PgConnection;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Concurrent writers, each on a form of its own.
const WRITERS: usize = 8;
/// Create-then-read rounds of each writer while replay is paused and resumed.
const ROUNDS: usize = 250;
/// Rounds of each writer with the standby down, and again once it is back.
const ROUNDS_AROUND_AN_OUTAGE: usize = 20;

/// Reads that may move, by where they ran, summed over `apps`: (primary, replicas).
async fn reads(apps: &[&TestApp]) -> (u64, u64) {
    let (mut primary, mut replicas) = (0, 0);
    for app in apps {
        for line in metrics_text(app).await.lines() {
            let value = || {
                line.rsplit(' ')
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
                    .map_or(0, |v| v as u64)
            };
            if line.starts_with(r#"formsd_db_reads_total{target="primary"}"#) {
                primary += value();
            } else if line.starts_with(r#"formsd_db_reads_total{target="replica""#) {
                replicas += value();
            }
        }
    }
    (primary, replicas)
}

/// How many times `apps` logged their replica down.
fn downs(apps: &[&TestApp]) -> usize {
    apps.iter()
        .map(|app| app.logs().text().matches("replica down").count())
        .sum()
}

/// Whether every one of `apps` has its replica up, by its metrics.
async fn replica_up_everywhere(apps: &[&TestApp]) -> bool {
    for app in apps {
        let text = metrics_text(app).await;
        let up = text
            .lines()
            .any(|l| l.starts_with("formsd_db_replica_up{") && l.ends_with(" 1"));
        if !up {
            return false;
        }
    }
    true
}

/// One writer: a form of its own, its responses so far, and the two instances.
struct Writer {
    apps: [Arc<TestApp>; 2],
    key: String,
    form_id: String,
    fields: Vec<String>,
    created: usize,
}

impl Writer {
    /// A response created on one instance, then read on the other, by a read that
    /// varies with `round`: listed (page and cursor mode), read by id, summarised,
    /// exported. Err names what the read missed.
    async fn round(&mut self, round: usize) -> Result<(), String> {
        let (writer, reader) = match round % 2 {
            0 => (&self.apps[0], &self.apps[1]),
            _ => (&self.apps[1], &self.apps[0]),
        };
        let form = &self.form_id;
        let body = serde_json::json!({"answers": contact_answers(&self.fields, round)});
        let created = writer
            .post(&format!("/forms/{form}/responses"), &self.key, &body)
            .await;
        if created.status != 201 {
            return Err(format!("create: {} {}", created.status, created.text));
        }
        self.created += 1;
        let id = created.body["data"]["response"]["id"]
            .as_str()
            .ok_or("no id")?
            .to_owned();
        let n = self.created;
        let lists = |reply: &Reply| {
            reply.body["data"]["responses"]
                .as_array()
                .is_some_and(|list| list.iter().any(|r| r["id"] == id.as_str()))
        };
        // Reads by id and lists mostly; a summary and an export (heavier) now and then.
        let (what, reply, found) = match round % 10 {
            0 | 5 => {
                let reply = reader
                    .get(&format!("/forms/{form}/responses?per_page=3"), &self.key)
                    .await;
                let total = reply.body["data"]["pagination"]["total"].as_u64();
                let found = lists(&reply) && total == Some(n as u64);
                ("list (page mode)", reply, found)
            }
            1 | 3 | 6 | 8 => {
                let path = format!("/forms/{form}/responses/{id}");
                let reply = reader.get(&path, &self.key).await;
                let found = reply.body["data"]["response"]["id"] == id.as_str();
                ("get", reply, found)
            }
            4 => {
                let reply = reader
                    .get(&format!("/forms/{form}/summary"), &self.key)
                    .await;
                let completed = &reply.body["data"]["summary"]["counts"]["completed"];
                let found = completed.as_u64() == Some(n as u64);
                ("summary", reply, found)
            }
            2 | 7 => {
                let path = format!("/forms/{form}/responses?cursor=&per_page=3");
                let reply = reader.get(&path, &self.key).await;
                let found = lists(&reply);
                ("list (cursor mode)", reply, found)
            }
            _ => {
                let path = format!("/forms/{form}/responses/export");
                let reply = send(
                    reader
                        .request(Method::GET, &path)
                        .header("x-api-key", &self.key),
                )
                .await;
                let lines = reply.text.lines().filter(|l| !l.is_empty()).count();
                let found = reply.text.contains(&id) && lines == n;
                ("export", reply, found)
            }
        };
        if reply.status != 200 || !found {
            return Err(format!(
                "{what} of response {n} ({id}) on the other instance: {} {}",
                reply.status,
                &reply.text[..reply.text.len().min(300)]
            ));
        }
        Ok(())
    }
}

/// Each writer's `rounds` rounds, all writers at once; the failures.
async fn run(writers: &mut Vec<Writer>, first: usize, rounds: usize) -> Vec<String> {
    let mut tasks = tokio::task::JoinSet::new();
    for mut writer in writers.drain(..) {
        tasks.spawn(async move {
            let mut failures = Vec::new();
            for round in first..first + rounds {
                if let Err(failure) = writer.round(round).await {
                    failures.push(failure);
                }
            }
            (writer, failures)
        });
    }
    let mut failures = Vec::new();
    while let Some(done) = tasks.join_next().await {
        let (writer, mut failed) = done.expect("writer task");
        writers.push(writer);
        failures.append(&mut failed);
    }
    failures
}

/// Pauses and resumes the standby's replay at random until `stop`; how many pauses.
async fn pause_at_random(mut standby: PgConnection, seed: u64, stop: Arc<AtomicBool>) -> usize {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut pauses = 0;
    while !stop.load(Ordering::Acquire) {
        tokio::time::sleep(Duration::from_millis(rng.random_range(1..40))).await;
        sqlx::query("SELECT pg_wal_replay_pause()")
            .execute(&mut standby)
            .await
            .expect("pausing replay");
        pauses += 1;
        tokio::time::sleep(Duration::from_millis(rng.random_range(1..80))).await;
        sqlx::query("SELECT pg_wal_replay_resume()")
            .execute(&mut standby)
            .await
            .expect("resuming replay");
    }
    pauses
}

#[tokio::test]
async fn a_read_never_misses_a_response_acknowledged_before_it() {
    let started = Instant::now();
    let pair = Pair::start().await;
    let db = TestDb::elsewhere("forms", pair.primary.create_database("forms").await);
    let replica = pair.standby.url("forms");
    let flags = [
        "--metrics-addr",
        "127.0.0.1:0",
        "--database-replica-url",
        replica.as_str(),
        "--pro-rate-limit",
        "1000000",
        "--pro-response-limit",
        "unlimited",
        // Every writer may export, and list with a filter or summarise, at once.
        "--exports-per-account",
        "64",
        "--exports-per-instance",
        "8",
        "--reads-per-account",
        "64",
        "--reads-per-instance",
        "8",
        // Room in the pool for all of them at once with the standby down (every read on
        // the primary), and a deadline for a connection that a loaded CI machine meets:
        // what is tested is where reads go, not how long the pool makes them wait.
        "--db-max-connections",
        "40",
        "--db-acquire-timeout",
        "15s",
    ];
    // One after the other: the first migrates the new database.
    let a = Arc::new(TestApp::spawn_on(db.clone(), &flags).await);
    let b = Arc::new(TestApp::spawn_on(db.clone(), &flags).await);
    let key = a.key(PRO, ALL).await;
    let mut writers = Vec::new();
    for _ in 0..WRITERS {
        let form = published_form(&a, &key, contact_fields(), Value::Null).await;
        writers.push(Writer {
            apps: [a.clone(), b.clone()],
            key: key.clone(),
            fields: field_ids(&form),
            form_id: form["id"].as_str().expect("form id").to_owned(),
            created: 0,
        });
    }
    let apps = [&*a, &*b];
    eventually(
        "the replica up on both instances",
        NOTIFIED_REPLICA,
        || async { replica_up_everywhere(&apps).await.then_some(()) },
    )
    .await;

    // Replay paused and resumed at random while responses are created on one instance
    // and read on the other.
    let seed = std::env::var("FORMS_REPLICA_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    let stop = Arc::new(AtomicBool::new(false));
    let pauser = tokio::spawn(pause_at_random(
        pair.standby.connect("postgres").await,
        seed,
        stop.clone(),
    ));
    let before = reads(&apps).await;
    let phase = Instant::now();
    let failures = run(&mut writers, 0, ROUNDS).await;
    let phase = phase.elapsed();
    stop.store(true, Ordering::Release);
    let pauses = pauser.await.expect("pauser");
    let after = reads(&apps).await;
    let (primary, replica) = (after.0 - before.0, after.1 - before.1);
    eprintln!(
        "replicas: {} create-then-read rounds over 2 instances in {phase:?}, replay paused \
         {pauses} times at random (seed {seed}): reads served by the primary {primary}, by \
         the replica {replica}; {} missed; replica found down {} times (test at {:?})",
        WRITERS * ROUNDS,
        failures.len(),
        downs(&apps),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} reads missed a response acknowledged before them (seed {seed}):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(replica > 0, "the replica served no read");
    assert!(
        primary > 0,
        "the primary served no read while replay was paused"
    );

    // The standby down: every read is answered, by the primary.
    pair.standby.stop().await;
    let before = reads(&apps).await;
    let failures = run(&mut writers, ROUNDS, ROUNDS_AROUND_AN_OUTAGE).await;
    let after = reads(&apps).await;
    eprintln!(
        "replicas: standby down: {} rounds, reads served by the primary {}, by the replica {}; {} failed",
        WRITERS * ROUNDS_AROUND_AN_OUTAGE,
        after.0 - before.0,
        after.1 - before.1,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "with the standby down:\n{}",
        failures.join("\n")
    );
    assert_eq!(after.1, before.1, "a read went to the stopped standby");

    // Back: it takes reads again.
    pair.standby.start().await;
    eventually(
        "the replica back on both instances",
        NOTIFIED_REPLICA,
        || async { replica_up_everywhere(&apps).await.then_some(()) },
    )
    .await;
    let before = reads(&apps).await;
    let first = ROUNDS + ROUNDS_AROUND_AN_OUTAGE;
    let failures = run(&mut writers, first, ROUNDS_AROUND_AN_OUTAGE).await;
    let after = reads(&apps).await;
    eprintln!(
        "replicas: standby back: {} rounds, reads served by the primary {}, by the replica {}; \
         {} failed; whole test {:?}",
        WRITERS * ROUNDS_AROUND_AN_OUTAGE,
        after.0 - before.0,
        after.1 - before.1,
        failures.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "with the standby back:\n{}",
        failures.join("\n")
    );
    assert!(after.1 > before.1, "the standby back took no read");
}

/// How long a test waits for an instance to see its replica come (or come back): the
/// instances promise a quarter of a second; the deadline is for a loaded machine.
const NOTIFIED_REPLICA: Duration = Duration::from_secs(15);

#[tokio::test]
async fn the_isolation_matrix_holds_with_a_replica() {
    let pair = Pair::start().await;
    let db = TestDb::elsewhere("forms", pair.primary.create_database("forms").await);
    let replica = pair.standby.url("forms");
    let app = crate::isolation::matrix(async |flags: &[&str]| {
        let mut flags = flags.to_vec();
        flags.extend([
            "--metrics-addr",
            "127.0.0.1:0",
            "--database-replica-url",
            &replica,
        ]);
        TestApp::spawn_on(db.clone(), &flags).await
    })
    .await;
    let (primary, replica) = reads(&[&app]).await;
    eprintln!(
        "replicas: isolation matrix: reads served by the primary {primary}, by the replica {replica}"
    );
    assert!(replica > 0, "the replica served none of the matrix's reads");
}

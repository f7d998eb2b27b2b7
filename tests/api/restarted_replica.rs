//! A read replica that comes back behind where it served (core/db/replicas): a standby
//! restarted between two probes replays again from its last restart point, so for a
//! moment it is short of writes that reads were already sent to it for. It must serve
//! none of those reads: its new connections are refused until it has replayed that far.
//!
//! The replica's address is a forwarder of the test's own, so that "the server at the
//! replica's address restarted behind" happens at one instant the test chooses, between
//! two probes: the forwarder cuts every connection and from then on reaches a second
//! standby whose replay the test paused before the write the reads look for.

use crate::failover::marker_form;
use crate::fixtures::{eventually, sample, scrape};
use crate::harness::*;
use crate::replication::{Servers, require};
use crate::stale_replica::{connect, create, get, replayed_all, scalar};
use forms::accounts::{Plan, Scopes, store};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// A TCP forwarder on a port of its own to `target`, which can be moved at once.
struct Forwarder {
    port: u16,
    target: Arc<AtomicU16>,
    links: Arc<Mutex<JoinSet<()>>>,
}

impl Forwarder {
    async fn start(target: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("its address").port();
        let target = Arc::new(AtomicU16::new(target));
        let links = Arc::new(Mutex::new(JoinSet::new()));
        let (to, set) = (target.clone(), links.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let port = to.load(Ordering::SeqCst);
                set.lock().expect("links").spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(("127.0.0.1", port)).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        });
        Self {
            port,
            target,
            links,
        }
    }

    /// From now on to `target`; every connection so far is cut (as a restart would).
    fn move_to(&self, target: u16) {
        self.target.store(target, Ordering::SeqCst);
        self.links.lock().expect("links").abort_all();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replica_back_behind_the_reads_it_was_sent_serves_none_of_them() {
    let Some(servers) = Servers::new() else {
        require("no PostgreSQL programs (initdb) on this machine");
        return;
    };
    let primary = servers.primary("primary", "forms").await;
    let replica = servers.standby("replica", &primary);
    let behind = servers.standby("behind", &primary);
    let forwarder = Forwarder::start(replica.port).await;
    let replica_url = format!("postgres://postgres@127.0.0.1:{}/forms", forwarder.port);
    let server = Formsd::start(&serve_args(
        &primary.url("forms"),
        &[
            "--metrics-addr",
            "127.0.0.1:0",
            "--database-replica-url",
            &replica_url,
        ],
    ))
    .await;
    let base = server.http_base();
    let on_primary = connect(&primary).await;
    let key = store::create_key(
        &on_primary,
        "restart",
        Some(Plan::Pro),
        &Scopes::new(ALL.iter().copied()),
        None,
    )
    .await
    .expect("a key")
    .key;
    let (form_id, field) = marker_form(&http_client(), &base, &key).await;

    // The second standby has the form, then replays no more.
    replayed_all(&on_primary, &behind).await;
    let on_behind = connect(&behind).await;
    sqlx::raw_sql("SELECT pg_wal_replay_pause()")
        .execute(&on_behind)
        .await
        .expect("pausing replay");
    eventually("replay paused", Duration::from_secs(30), || async {
        let paused: String = sqlx::query_scalar("SELECT pg_get_wal_replay_pause_state()")
            .fetch_one(&on_behind)
            .await
            .expect("its pause state");
        (paused == "paused").then_some(())
    })
    .await;

    // A write the paused standby lacks, read through the replica.
    let written = create(&base, &key, &form_id, &field, "after the pause").await;
    replayed_all(&on_primary, &replica).await;
    let path = format!("/forms/{form_id}/responses/{written}");
    let replica_reads = format!(
        "formsd_db_reads_total{{target=\"replica\",replica=\"127.0.0.1:{}\"}}",
        forwarder.port
    );
    let served_before = sample(&scrape(&server).await, &replica_reads).unwrap_or(0.0);
    eventually(
        "a read of it served by the replica",
        Duration::from_secs(60),
        || async {
            get(&base, &key, &path).await.ok(200);
            let served = sample(&scrape(&server).await, &replica_reads).unwrap_or(0.0);
            (served > served_before).then_some(())
        },
    )
    .await;

    // The replica's address now answers from behind that write, between two probes.
    forwarder.move_to(behind.port);
    let mut statuses = Vec::new();
    for _ in 0..40 {
        statuses.push(get(&base, &key, &path).await.status);
    }
    assert!(
        !statuses.contains(&404),
        "a read was served by a server short of the write it follows: {statuses:?}"
    );
    assert!(
        statuses.contains(&200),
        "the primary serves while the replica is short: {statuses:?}"
    );
    let up = format!(
        "formsd_db_replica_up{{replica=\"127.0.0.1:{}\"}}",
        forwarder.port
    );
    eventually(
        "the replica seen down while short",
        Duration::from_secs(30),
        || async { (sample(&scrape(&server).await, &up) == Some(0.0)).then_some(()) },
    )
    .await;

    // Replaying again, it catches up and serves once more.
    sqlx::raw_sql("SELECT pg_wal_replay_resume()")
        .execute(&on_behind)
        .await
        .expect("resuming replay");
    replayed_all(&on_primary, &behind).await;
    let served_before = sample(&scrape(&server).await, &replica_reads).unwrap_or(0.0);
    eventually(
        "the replica serving again once caught up",
        Duration::from_secs(60),
        || async {
            get(&base, &key, &path).await.ok(200);
            let served = sample(&scrape(&server).await, &replica_reads).unwrap_or(0.0);
            (served > served_before).then_some(())
        },
    )
    .await;
    let replayed = scalar(
        &on_behind,
        "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint",
    )
    .await;
    assert!(replayed > 0);
    on_behind.close().await;
    on_primary.close().await;
}

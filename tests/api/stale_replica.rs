//! A read replica after a failover (core/db/replicas.rs): a replica serves reads only
//! while it provably follows the current primary, its system identifier and timeline.
//!
//! Three servers made by the test: a primary, a standby that will be promoted, and a
//! read replica of the primary. The standby stops receiving, the primary writes on (the
//! replica replays it all, well past the standby), then the primary is killed (`kill
//! -9`) and the standby promoted: the replica is left on the former timeline with
//! writes the new primary never had, and ahead of the new primary's WAL position, so
//! that the position alone would send it reads. A response deleted on the new primary
//! must read 404 and one created there must be listed, and the replica must be seen as
//! not following (its gauge at 0, a line in the log).

use crate::failover::marker_form;
use crate::fixtures::{eventually, sample, scrape};
use crate::harness::*;
use crate::replication::{Cluster, Servers, require};
use forms::accounts::{Plan, Scopes, store};
use serde_json::{Value, json};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use std::time::Duration;
use uuid::Uuid;

/// One connection to the database of `cluster`.
pub(crate) async fn connect(cluster: &Cluster) -> PgPool {
    PgPoolOptions::new()
        .max_connections(1)
        .connect(&cluster.url("forms"))
        .await
        .expect("connecting")
}

/// `sql` on `pool`, one value.
pub(crate) async fn scalar(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Waits until the standby at `standby` has replayed all that `primary` has written.
pub(crate) async fn replayed_all(primary: &PgPool, standby: &Cluster) {
    let target = scalar(
        primary,
        "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint",
    )
    .await;
    let standby = connect(standby).await;
    eventually(
        "the standby replayed it",
        Duration::from_secs(60),
        || async {
            let replayed = scalar(
                &standby,
                "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint",
            )
            .await;
            (replayed >= target).then_some(())
        },
    )
    .await;
    standby.close().await;
}

/// A create of a response marked `marker`, retried (same Idempotency-Key) until the
/// service writes again; its id.
pub(crate) async fn create(
    base: &str,
    key: &str,
    form_id: &str,
    field: &str,
    marker: &str,
) -> String {
    let idempotency_key = Uuid::new_v4().to_string();
    eventually("a create acknowledged", Duration::from_secs(60), || async {
        let reply = send(
            http_client()
                .post(format!("{base}/forms/{form_id}/responses"))
                .header("x-api-key", key)
                .header("idempotency-key", &idempotency_key)
                .json(&json!({"answers": {field: marker}})),
        )
        .await;
        (reply.status == 201).then(|| {
            reply.body["data"]["response"]["id"]
                .as_str()
                .expect("id")
                .to_owned()
        })
    })
    .await
}

pub(crate) async fn get(base: &str, key: &str, path: &str) -> Reply {
    send(
        http_client()
            .get(format!("{base}{path}"))
            .header("x-api-key", key),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replica_left_on_the_former_timeline_takes_no_reads() {
    let Some(servers) = Servers::new() else {
        require("no PostgreSQL programs (initdb) on this machine");
        return;
    };
    let primary = servers.primary("primary", "forms").await;
    let standby = servers.standby("standby", &primary);
    let replica = servers.standby("replica", &primary);
    let url = format!(
        "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/forms",
        primary.port, standby.port
    );
    let replica_url = replica.url("forms");
    let server = Formsd::start(&serve_args(
        &url,
        &[
            "--metrics-addr",
            "127.0.0.1:0",
            "--database-replica-url",
            &replica_url,
        ],
    ))
    .await;
    let base = server.http_base();
    let on_primary = sqlx::PgPool::connect(&primary.url("forms"))
        .await
        .expect("the primary");
    let key = store::create_key(
        &on_primary,
        "stale",
        Some(Plan::Pro),
        &Scopes::new(ALL.iter().copied()),
        None,
    )
    .await
    .expect("a key")
    .key;
    on_primary.close().await;
    let (form_id, field) = marker_form(&http_client(), &base, &key).await;
    let deleted = create(&base, &key, &form_id, &field, "deleted later").await;
    let kept = create(&base, &key, &form_id, &field, "kept").await;

    // The replica serves reads while it follows the primary.
    let replica_reads = format!(
        "formsd_db_reads_total{{target=\"replica\",replica=\"127.0.0.1:{}\"}}",
        replica.port
    );
    eventually(
        "a read served by the replica",
        Duration::from_secs(60),
        || async {
            get(
                &base,
                &key,
                &format!("/forms/{form_id}/responses/{deleted}"),
            )
            .await
            .ok(200);
            let served = sample(&scrape(&server).await, &replica_reads).unwrap_or(0.0);
            (served > 0.0).then_some(())
        },
    )
    .await;

    // The standby has all of that, then receives no more.
    let writer = connect(&primary).await;
    replayed_all(&writer, &standby).await;
    let on_standby = connect(&standby).await;
    for statement in [
        "ALTER SYSTEM SET primary_conninfo = ''",
        "SELECT pg_reload_conf()",
    ] {
        sqlx::raw_sql(statement)
            .execute(&on_standby)
            .await
            .expect("stopping the standby's replication");
    }
    eventually(
        "the standby receives no more",
        Duration::from_secs(60),
        || async {
            let receivers = scalar(&on_standby, "SELECT count(*) FROM pg_stat_wal_receiver").await;
            (receivers == 0).then_some(())
        },
    )
    .await;
    on_standby.close().await;
    // The primary writes on (three WAL segments), and the replica replays it all.
    sqlx::raw_sql("CREATE TABLE pump (n int)")
        .execute(&writer)
        .await
        .expect("a table");
    for _ in 0..3 {
        sqlx::raw_sql("INSERT INTO pump VALUES (1); SELECT pg_switch_wal()")
            .execute(&writer)
            .await
            .expect("writing on");
    }
    replayed_all(&writer, &replica).await;
    writer.close().await;

    // The primary crashes; the standby is promoted, behind the replica.
    servers.kill(&primary);
    tokio::task::block_in_place(|| servers.pg_ctl(&standby, "promote"));
    let created = create(&base, &key, &form_id, &field, "created on the new primary").await;
    let path = format!("/forms/{form_id}/responses/{deleted}");
    let reply = send(
        http_client()
            .delete(format!("{base}{path}"))
            .header("x-api-key", &key),
    )
    .await;
    assert_eq!(reply.status, 204, "{}", reply.text);

    // Read as the new primary has it, again and again (reads spread over the servers).
    for _ in 0..10 {
        let reply = get(&base, &key, &path).await;
        assert_eq!(
            reply.status,
            404,
            "a response deleted on the new primary, read: {}\n{}",
            reply.text,
            server.logs.text()
        );
        let list = get(&base, &key, &format!("/forms/{form_id}/responses")).await;
        let ids: Vec<&str> = list.ok(200)["responses"]
            .as_array()
            .expect("responses")
            .iter()
            .filter_map(|r: &Value| r["id"].as_str())
            .collect();
        assert!(
            ids.contains(&created.as_str()) && ids.contains(&kept.as_str()),
            "listed {ids:?}, not the response created on the new primary {created}"
        );
    }
    let up = format!(
        "formsd_db_replica_up{{replica=\"127.0.0.1:{}\"}}",
        replica.port
    );
    // The probe that finds it astray may come after those reads (it asks every half
    // second); until then the reads above went to the primary all the same.
    eventually(
        "the replica seen as not following",
        Duration::from_secs(30),
        || async {
            let scraped = scrape(&server).await;
            (sample(&scraped, &up) == Some(0.0)).then_some(())
        },
    )
    .await;
    let logs = server.logs.text();
    assert!(logs.contains("does not follow the primary"), "{logs}");
}

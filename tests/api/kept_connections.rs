//! The request path's kept connections (`forms::db::lanes`): a connection whose
//! statements ran to their end is kept and taken again without sqlx's check, anything
//! else goes back to the pool, and kept connections never hold the pool's last one.

use crate::fixtures::eventually;
use crate::harness::TestDb;
use forms::db::lanes::{KEEP_IDLE, Lanes};
use std::time::Duration;

async fn backend(lane: &mut forms::db::lanes::Lane) -> i32 {
    sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut **lane)
        .await
        .expect("backend pid")
}

#[tokio::test]
async fn a_finished_lane_is_kept_and_taken_again() {
    let db = TestDb::create().await;
    let pool = forms::db::connect(
        &db.url,
        4,
        forms::db::ACQUIRE_TIMEOUT,
        forms::db::ACQUIRE_TIMEOUT,
    )
    .await
    .expect("pool");
    let lanes = Lanes::new(pool.clone());

    let mut lane = lanes.take().await.expect("lane");
    let first = backend(&mut lane).await;
    lane.finish();
    assert_eq!(lanes.kept(), 1, "a finished lane is kept");
    let mut lane = lanes.take().await.expect("lane");
    assert_eq!(lanes.kept(), 0, "taking it empties the store");
    assert_eq!(
        backend(&mut lane).await,
        first,
        "the same connection serves again"
    );

    // Dropped without `finish` (a request gone half way): back to the pool, not kept.
    drop(lane);
    assert_eq!(lanes.kept(), 0);
    eventually("the pool has it back", Duration::from_secs(10), || async {
        (pool.num_idle() == 1).then_some(())
    })
    .await;
}

#[tokio::test]
async fn kept_lanes_go_back_to_the_pool_when_idle() {
    let db = TestDb::create().await;
    let pool = forms::db::connect(
        &db.url,
        4,
        forms::db::ACQUIRE_TIMEOUT,
        forms::db::ACQUIRE_TIMEOUT,
    )
    .await
    .expect("pool");
    let lanes = Lanes::new(pool.clone());
    let (a, b) = (
        lanes.take().await.expect("lane"),
        lanes.take().await.expect("lane"),
    );
    a.finish();
    b.finish();
    assert_eq!(lanes.kept(), 2);
    lanes.trim();
    assert_eq!(lanes.kept(), 2, "fresh ones stay");
    // Idle ones go back once they have been idle for KEEP_IDLE.
    tokio::time::sleep(KEEP_IDLE).await;
    eventually("idle lanes go back", Duration::from_secs(10), || async {
        lanes.trim();
        (lanes.kept() == 0).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_lane_is_not_kept_when_the_pool_has_no_other() {
    let db = TestDb::create().await;
    let pool = forms::db::connect(
        &db.url,
        2,
        forms::db::ACQUIRE_TIMEOUT,
        forms::db::ACQUIRE_TIMEOUT,
    )
    .await
    .expect("pool");
    let lanes = Lanes::new(pool.clone());
    let a = lanes.take().await.expect("lane");
    let b = lanes.take().await.expect("lane");
    // The pool is at its size and has nothing idle: someone may be waiting.
    a.finish();
    assert_eq!(lanes.kept(), 0, "given back to the pool");
    tokio::time::timeout(Duration::from_secs(2), pool.acquire())
        .await
        .expect("another user of the pool gets the connection")
        .expect("acquired");
    drop(b);
}

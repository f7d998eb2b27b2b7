//! Read replicas (`--database-replica-url`), chosen by WAL position so that a read a
//! replica serves sees every write acknowledged before the read arrived, on any
//! instance.
//!
//! The rule. A read that may move (responses listed, read, exported, summarised; usage;
//! the dashboard's pages) runs through [`Replicas::read`], which asks where. That reads the
//! primary's WAL insert position after the read arrived: every commit acknowledged
//! before then, by any instance, ends at or before that position (also with
//! `synchronous_commit = off`, which acknowledges before the WAL is written: hence the
//! insert position rather than the written one). A replica serves the read only if it
//! has replayed at least that far (`pg_last_wal_replay_lsn()`): a snapshot taken there
//! afterwards sees every one of those commits. Otherwise (every replica short of it,
//! paused, down or no longer a standby, or a position that did not come within
//! [`POSITION_DEADLINE`]) the primary serves the read.
//!
//! Positions are shared as the form reads are (`shared::Shared`): reads arriving while
//! a position read is in flight wait for the next one, sent after they arrived, and
//! all take its answer; the same for each replica's replayed position. A standby's
//! replayed position only grows while it runs, so one already seen at or past a read's
//! target sends the read there without asking; a replica found down forgets what it had
//! replayed (restarted, it may open short of where it was). A restart between two probes
//! is caught by the connection: a new one is refused while its server has not replayed
//! every position a read was sent there for (`connected`).
//!
//! The cost. A read that may move costs the primary one position read (a function
//! call, no table; shared by the reads arriving together) in place of the read itself,
//! and, when the replica's last seen position is short of the target, one round trip
//! to the replica (shared likewise). Streaming replication acknowledges a commit before
//! the standby replays it (unless `synchronous_commit = remote_apply`), so a read that
//! follows a write by less than the replication delay finds the replica short and the
//! primary serves it.
//!
//! Whom it follows (`lineage`). A WAL position means the same data on two servers only
//! on the same timeline of the same database cluster: after a failover, a replica of
//! the former primary may have replayed past the promoted standby and hold writes the
//! new primary never had. So a replica takes reads only while it provably follows the
//! current primary: its system identifier is the primary's, and its WAL receiver
//! streams the primary's timeline. The primary's lineage comes with its position, for
//! every read (a change of primary is seen by the next read), and a replica is sent a
//! read only if it was last seen following that very lineage; a replica that cannot be
//! shown to follow (its receiver stopped, another timeline, another cluster, or a role
//! that may not see its receiver) takes none.
//!
//! Health. Each replica is probed every [`PROBE_EVERY`] (every
//! [`PROBE_EVERY_WHILE_DOWN`] while down) for its replayed position and whom it
//! follows, and its lag behind the primary is published (`formsd_db_replica_lag_bytes`,
//! `formsd_db_replica_up`). A replica whose probe or position check fails or times out,
//! or that does not follow the primary, takes no reads from that moment (with a line in
//! the log), and takes them again from the first probe that finds it answering as a
//! standby of the primary. Reads are counted by where they ran
//! (`formsd_db_reads_total`).

mod connection;
mod lineage;
mod reads;
mod state;

pub(crate) use lineage::Lineage;

use super::lanes::Lanes;
use super::shared::Shared;
use super::store::{Replay, replay_position, wal_position};
use connection::{connected, idle_since_down, label};
use lineage::{lineage_of, mismatch};
use sqlx::PgPool;
use sqlx::postgres::PgConnectOptions;
use state::{Health, State};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Longest wait for a WAL position (the primary's, or a replica's replayed one)
/// before the read goes to the primary (and a silent replica counts as down).
pub const POSITION_DEADLINE: Duration = Duration::from_millis(250);
/// How often a replica that answers is probed.
pub const PROBE_EVERY: Duration = Duration::from_millis(500);
/// How often a replica found down is probed: its return is seen within this.
pub const PROBE_EVERY_WHILE_DOWN: Duration = Duration::from_millis(250);

/// A position in the WAL, in bytes from its start.
type Lsn = i64;

/// The primary's WAL insert position, and its lineage.
#[derive(Clone, Copy, Debug)]
struct Head {
    position: Lsn,
    lineage: Lineage,
}

/// What a replica answered: how far it has replayed, and whom it follows (or why it
/// shows none).
#[derive(Clone, Debug)]
struct Answer {
    replayed: Lsn,
    follows: Result<Lineage, String>,
}

impl Answer {
    /// Why it does not follow the primary of lineage `primary`; `None` when it does.
    fn astray_from(&self, primary: Lineage) -> Option<String> {
        match &self.follows {
            Ok(lineage) => mismatch(*lineage, primary),
            Err(why) => Some(why.clone()),
        }
    }
}

/// Where the reads that may move are served: the primary, and the replicas that have
/// replayed far enough (shared; clones share the replicas and their state).
#[derive(Clone)]
pub struct Replicas {
    inner: Arc<Inner>,
}

struct Inner {
    primary: PgPool,
    /// Connections kept for the primary's position reads (one round trip each).
    lanes: Lanes,
    /// The primary's position and lineage, read once for the reads that arrive together.
    position: Shared<(), Head>,
    replicas: Vec<Replica>,
    /// Where the next read starts looking, so that reads spread over the replicas.
    next: AtomicUsize,
}

struct Replica {
    /// `host:port` of its URL (never its credentials): logs and metrics.
    label: String,
    pool: PgPool,
    /// What it says of itself (how far it has replayed, whom it follows), read once for
    /// the reads that arrive together.
    replayed: Shared<(), Replay>,
    state: Arc<State>,
}

impl Replicas {
    /// The primary alone: every read is served by it.
    pub fn none(primary: PgPool) -> Self {
        Self::with(primary, Vec::new())
    }

    /// The primary and a pool on each of `urls` (sized and timed as the primary's),
    /// connected on first use so that a replica down at start delays nothing; each is
    /// probed from now on, until the primary's pool closes.
    pub fn open(primary: PgPool, urls: &[String]) -> Result<Self, sqlx::Error> {
        let options = primary.options();
        let (max, acquire) = (options.get_max_connections(), options.get_acquire_timeout());
        let mut replicas = Vec::with_capacity(urls.len());
        for url in urls {
            let connect = PgConnectOptions::from_str(url)?;
            let state = Arc::new(State::new());
            let seen = state.clone();
            let pool = super::pool_options(vec![connect.get_port()], max, acquire)
                // Connections left idle while the replica was found down may be dead
                // (it restarted): checked before use, so that its return is not
                // mistaken for another failure.
                .before_acquire(move |conn, meta| {
                    let check = meta.idle_for >= super::TRUST_IDLE
                        || idle_since_down(seen.since_down(), meta.idle_for);
                    Box::pin(
                        async move { Ok(!check || sqlx::Connection::ping(conn).await.is_ok()) },
                    )
                })
                .after_connect({
                    let (state, ports) = (state.clone(), vec![connect.get_port()]);
                    move |conn, _| {
                        let (state, ports) = (state.clone(), ports.clone());
                        Box::pin(async move { connected(conn, &state, &ports).await })
                    }
                })
                .connect_lazy_with(connect.clone());
            replicas.push(Replica {
                label: label(&connect),
                pool,
                replayed: Shared::default(),
                state,
            });
        }
        let replicas = Self::with(primary, replicas);
        if !replicas.inner.replicas.is_empty() {
            replicas.inner.lanes.spawn_trim();
            for index in 0..replicas.inner.replicas.len() {
                tokio::spawn(replicas.clone().probe(index));
            }
        }
        Ok(replicas)
    }

    fn with(primary: PgPool, replicas: Vec<Replica>) -> Self {
        Self {
            inner: Arc::new(Inner {
                lanes: Lanes::new(primary.clone()),
                primary,
                position: Shared::default(),
                replicas,
                next: AtomicUsize::new(0),
            }),
        }
    }

    /// The primary's pool: every write, and the reads that must not move.
    pub fn primary(&self) -> &PgPool {
        &self.inner.primary
    }

    /// The pool a read that may move runs on, chosen when the read arrives (a replica
    /// that has replayed the primary's position as of now, else the primary), and
    /// whether it is a replica's. Reads take it through [`Replicas::read`].
    async fn choose(&self) -> (PgPool, bool) {
        match self.caught_up().await {
            Some(replica) => {
                metrics::counter!("formsd_db_reads_total", "target" => "replica", "replica" => replica.label.clone())
                    .increment(1);
                (replica.pool.clone(), true)
            }
            None => {
                metrics::counter!("formsd_db_reads_total", "target" => "primary").increment(1);
                (self.inner.primary.clone(), false)
            }
        }
    }

    /// Closes the replicas' pools (the primary's is its owner's to close).
    pub async fn close(&self) {
        for replica in &self.inner.replicas {
            replica.pool.close().await;
        }
    }

    /// A replica up that has replayed the primary's position read now, if any.
    async fn caught_up(&self) -> Option<&Replica> {
        let inner = &*self.inner;
        let count = inner.replicas.len();
        if count == 0 {
            return None;
        }
        let start = inner.next.fetch_add(1, Ordering::Relaxed);
        // No replica takes reads: the primary serves, without a position read.
        if inner.replicas.iter().all(|r| !r.state.is_up()) {
            return None;
        }
        let target = self.primary_position().await?;
        // As known once the target is (a replica found down meanwhile is left out), and
        // only of replicas last seen following this primary.
        let seen: Vec<Option<Lsn>> = inner
            .replicas
            .iter()
            .map(|r| r.state.seen_following(target.lineage))
            .collect();
        // What was seen already suffices: no round trip.
        if let Some(index) = first_reaching(&seen, start, target.position) {
            return Some(inner.replicas[index].promise(target.position));
        }
        for index in rotation(count, start).filter(|&i| seen[i].is_some()) {
            let replica = &inner.replicas[index];
            // Every connection of a busy replica in use: its check would wait for one,
            // and a wait cut short would count as the replica down.
            if replica.busy() {
                continue;
            }
            let answer = replica.ask().await;
            if answer.is_some_and(|answer| {
                answer.replayed >= target.position && answer.astray_from(target.lineage).is_none()
            }) {
                return Some(replica.promise(target.position));
            }
        }
        None
    }

    /// The primary's WAL position and lineage, read after the caller arrived (shared
    /// with the callers waiting with it); `None` when it did not come in time.
    async fn primary_position(&self) -> Option<Head> {
        let inner = &*self.inner;
        let read = inner.position.read((), || async {
            let mut lane = inner.lanes.take().await?;
            let (position, lineage) = wal_position(&mut *lane).await?;
            lane.finish();
            Ok::<_, sqlx::Error>(Head { position, lineage })
        });
        match tokio::time::timeout(POSITION_DEADLINE, read).await {
            Ok(Ok(head)) => Some(head),
            Ok(Err(error)) => {
                tracing::debug!(%error, "reading the primary's WAL position; the primary serves");
                None
            }
            Err(_) => None,
        }
    }

    /// Probes replica `index` until the primary's pool closes: whether it is up and
    /// follows the primary, how far it has replayed, and its lag.
    async fn probe(self, index: usize) {
        let replica = &self.inner.replicas[index];
        while !self.inner.primary.is_closed() {
            // A busy replica is answering its reads: no news, and no wait for a
            // connection that a deadline could mistake for the replica down.
            let asked = match replica.busy() {
                true => None,
                false => replica.ask().await,
            };
            // Read after the replica's: a lag of 0 means none. Without the primary's,
            // whom it follows cannot be judged (and no read goes to a replica then).
            if let Some(answer) = asked
                && let Some(primary) = self.primary_position().await
            {
                match answer.astray_from(primary.lineage) {
                    None => {
                        replica.found_up(answer.replayed);
                        metrics::gauge!("formsd_db_replica_lag_bytes", "replica" => replica.label.clone())
                            .set(lag(primary.position, answer.replayed) as f64);
                    }
                    Some(why) => replica.found_astray(&why),
                }
            }
            let wait = match replica.state.is_up() {
                true => PROBE_EVERY,
                false => PROBE_EVERY_WHILE_DOWN,
            };
            tokio::time::sleep(wait).await;
        }
    }
}

impl Replica {
    /// Itself, holding its servers to `target` from now on (see `connected`).
    fn promise(&self, target: Lsn) -> &Self {
        self.state.promised(target);
        self
    }

    /// Its replayed position and whom it follows, asked now (shared with the callers
    /// waiting with this one); `None`, and the replica down, when it fails, does not
    /// answer in time, or is no longer a standby.
    async fn ask(&self) -> Option<Answer> {
        let read = self.replayed.read((), || replay_position(&self.pool));
        let replay = match tokio::time::timeout(POSITION_DEADLINE, read).await {
            Ok(Ok(replay)) => replay,
            Ok(Err(error)) => return self.found_down(&error.to_string()),
            Err(_) => return self.found_down("its position did not come in time"),
        };
        let Some(replayed) = replay.replayed else {
            return self.found_down("it is not a standby (promoted?)");
        };
        let follows = lineage_of(&replay);
        self.state.saw(replayed, follows.as_ref().ok().copied());
        Some(Answer { replayed, follows })
    }

    /// A probe found it answering as a standby, having replayed `replayed`.
    fn found_up(&self, replayed: Lsn) {
        if self.state.up(replayed) {
            tracing::info!(replica = %self.label, "replica answering and following the primary: it takes reads");
        }
        metrics::gauge!("formsd_db_replica_up", "replica" => self.label.clone()).set(1.0);
    }

    /// Whether its pool has no connection to give now, nor room for another.
    fn busy(&self) -> bool {
        let pool = &self.pool;
        pool.num_idle() == 0 && pool.size() >= pool.options().get_max_connections()
    }

    fn found_down<T>(&self, why: &str) -> Option<T> {
        // Also told when it was never up: a replica unreachable from the start.
        if self.state.not_up(Health::Down) {
            tracing::warn!(replica = %self.label, reason = why, "replica down: the primary serves its reads");
        }
        metrics::gauge!("formsd_db_replica_up", "replica" => self.label.clone()).set(0.0);
        None
    }

    /// A probe found it answering as a standby that cannot be shown to follow the
    /// primary (`why`): it takes no reads.
    fn found_astray(&self, why: &str) {
        if self.state.not_up(Health::Astray) {
            tracing::warn!(
                replica = %self.label,
                reason = why,
                "replica does not follow the primary: the primary serves its reads"
            );
        }
        metrics::gauge!("formsd_db_replica_up", "replica" => self.label.clone()).set(0.0);
    }
}

/// The first replica, looking from `start` round the ring, whose position `seen`
/// (`None`: down) reaches `target`.
fn first_reaching(seen: &[Option<Lsn>], start: usize, target: Lsn) -> Option<usize> {
    rotation(seen.len(), start).find(|&i| seen[i].is_some_and(|replayed| replayed >= target))
}

/// The indexes `0..count` starting at `start` (modulo `count`) and wrapping round.
fn rotation(count: usize, start: usize) -> impl Iterator<Item = usize> {
    let first = start.checked_rem(count).unwrap_or(0);
    (0..count).map(move |i| (first + i) % count)
}

/// Bytes of WAL a replica has still to replay to reach the primary's position.
fn lag(primary: Lsn, replayed: Lsn) -> i64 {
    primary.saturating_sub(replayed).max(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_goes_to_a_replica_up_that_reached_its_target() {
        let seen = [Some(100), None, Some(250), Some(300)];
        // From the start, round the ring: the first one far enough.
        assert_eq!(first_reaching(&seen, 0, 100), Some(0));
        assert_eq!(first_reaching(&seen, 1, 100), Some(2));
        assert_eq!(first_reaching(&seen, 3, 100), Some(3));
        assert_eq!(first_reaching(&seen, 7, 100), Some(3), "start wraps");
        // Short of the target: skipped, however close; exactly there is enough.
        assert_eq!(first_reaching(&seen, 0, 101), Some(2));
        assert_eq!(first_reaching(&seen, 0, 300), Some(3));
        // None far enough, or none up: the primary.
        assert_eq!(first_reaching(&seen, 0, 301), None);
        assert_eq!(first_reaching(&[None, None], 0, 0), None);
        assert_eq!(first_reaching(&[], 5, 0), None);
    }

    #[test]
    fn reads_spread_round_the_replicas() {
        assert_eq!(rotation(3, 0).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(rotation(3, 4).collect::<Vec<_>>(), [1, 2, 0]);
        assert_eq!(rotation(0, 4).count(), 0);
        let caught_up = [Some(10), Some(10)];
        let chosen: Vec<_> = (0..4)
            .filter_map(|start| first_reaching(&caught_up, start, 10))
            .collect();
        assert_eq!(chosen, [0, 1, 0, 1]);
    }

    #[test]
    fn lag_is_what_is_left_to_replay() {
        assert_eq!(lag(1000, 400), 600);
        assert_eq!(lag(400, 400), 0);
        // The primary's position read before a replica's newer one: no lag, not less.
        assert_eq!(lag(400, 1000), 0);
    }

    #[test]
    fn connections_idle_since_a_replica_went_down_are_checked() {
        let ms = Duration::from_millis;
        assert!(!idle_since_down(None, ms(60_000)), "never down");
        assert!(
            idle_since_down(Some(ms(100)), ms(500)),
            "idle before it went down"
        );
        assert!(idle_since_down(Some(ms(100)), ms(100)));
        assert!(
            !idle_since_down(Some(ms(500)), ms(100)),
            "used since it came back"
        );
        assert!(!idle_since_down(Some(ms(500)), ms(0)), "fresh connection");
    }

    #[test]
    fn a_label_names_the_server_without_credentials() {
        let tcp = PgConnectOptions::from_str("postgres://app:s3cret@db-replica-1:5433/forms")
            .expect("url");
        assert_eq!(label(&tcp), "db-replica-1:5433");
        let default_port =
            PgConnectOptions::from_str("postgres://app:s3cret@10.0.0.7/forms").expect("url");
        assert_eq!(label(&default_port), "10.0.0.7:5432");
        let socket = PgConnectOptions::from_str(
            "postgres://postgres:pw@localhost/forms?host=%2Fvar%2Frun%2Fpg&port=5434",
        )
        .expect("url");
        assert_eq!(label(&socket), "/var/run/pg:5434");
    }
}

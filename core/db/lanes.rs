//! Connections the request path keeps between requests.
//!
//! sqlx's pool checks every connection given back to it with a round trip (a `Sync`
//! and its `ReadyForQuery`), so a one-statement request through the pool costs two
//! round trips: as much work again as the request's own. A lane is a pooled
//! connection the request path hands back here instead, after a statement (or a
//! transaction) that ran to its end, when nothing can be left pending on it; the next
//! request takes it without a check. Anything else (an error, a request dropped half
//! way) gives the connection back to the pool, which checks it as before.
//!
//! Lanes never starve the rest of the service: a connection is kept only while the
//! pool has others to give, and one left unused for [`KEEP_IDLE`] goes back to the
//! pool, where every other user of the database finds it.

use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, PgPool, Postgres};
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a kept connection waits for the next request before it goes back to the
/// pool.
pub const KEEP_IDLE: Duration = Duration::from_millis(250);

/// Kept connections, oldest first, with when each was kept.
type Kept = Arc<Mutex<Vec<(PoolConnection<Postgres>, Instant)>>>;

/// The connections kept for the request path (shared; clones share them).
#[derive(Clone)]
pub struct Lanes {
    pool: PgPool,
    kept: Kept,
}

/// A connection taken for one request. Call [`Lane::finish`] once its statements
/// have run to their end to keep it for the next request; dropped without that, it
/// goes back to the pool.
pub struct Lane {
    conn: PoolConnection<Postgres>,
    lanes: Lanes,
}

impl Lanes {
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            kept: Arc::default(),
        }
    }

    /// A kept connection, or one from the pool.
    pub async fn take(&self) -> Result<Lane, sqlx::Error> {
        let kept = {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            // The most recently used first: it is the warmest, and the oldest age out.
            kept.pop()
        };
        let conn = match kept {
            Some((conn, _)) => conn,
            None => self.pool.acquire().await?,
        };
        Ok(Lane {
            conn,
            lanes: self.clone(),
        })
    }

    /// Gives the connections unused for [`KEEP_IDLE`] back to the pool; `spawn_trim`
    /// calls it periodically.
    pub fn trim(&self) {
        let stale: Vec<_> = {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            let stale = kept
                .iter()
                .position(|(_, at)| at.elapsed() < KEEP_IDLE)
                .unwrap_or(kept.len());
            kept.drain(..stale).collect()
        };
        // Dropped outside the lock: each goes back to the pool (checked there).
        drop(stale);
    }

    /// Trims the kept connections every [`KEEP_IDLE`] until the pool closes.
    pub fn spawn_trim(&self) -> tokio::task::JoinHandle<()> {
        let lanes = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(KEEP_IDLE);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            while !lanes.pool.is_closed() {
                tick.tick().await;
                lanes.trim();
            }
            lanes
                .kept
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
        })
    }

    /// Connections kept now (for tests).
    pub fn kept(&self) -> usize {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

impl Lane {
    /// The statements on this connection ran to their end (a result read in full, a
    /// transaction committed or rolled back): keep it for the next request, unless
    /// the pool has no other connection to give.
    pub fn finish(self) {
        let Lane { conn, lanes } = self;
        let pool = &lanes.pool;
        let pool_short =
            pool.size() >= pool.options().get_max_connections() && pool.num_idle() == 0;
        if pool_short || pool.is_closed() {
            // Back to the pool, where a caller may be waiting for it.
            drop(conn);
            return;
        }
        lanes
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((conn, Instant::now()));
    }
}

impl Deref for Lane {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        &self.conn
    }
}

impl DerefMut for Lane {
    fn deref_mut(&mut self) -> &mut PgConnection {
        &mut self.conn
    }
}

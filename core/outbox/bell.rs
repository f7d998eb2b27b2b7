//! The bell of a kind of message: how an enqueue written outside a transaction of its
//! own (the one-statement create's deliveries) wakes the workers. This instance's
//! worker is woken in-process at once; the others by a NOTIFY on the kind's channel,
//! sent at most once per `NOTIFY_EVERY` however many enqueues ring meanwhile (one
//! NOTIFY per create would cost the database a notification queue entry and a wake of
//! every listener per response). A ring during the pause is not lost: one NOTIFY
//! follows it at the pause's end. Polling stays the fallback for a lost NOTIFY.

use super::store;
use sqlx::PgPool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The shortest time between two NOTIFYs of one bell.
const NOTIFY_EVERY: Duration = Duration::from_millis(100);

/// Wakes the workers of one kind (cheap to clone: one bell per instance and kind).
#[derive(Clone)]
pub(crate) struct Bell {
    inner: Arc<Inner>,
}

struct Inner {
    pool: PgPool,
    channel: &'static str,
    /// This instance's worker waits on it (a ring while it works is kept for it).
    local: Notify,
    remote: Mutex<Remote>,
}

/// When the last NOTIFY went, and whether one is already due after the pause.
#[derive(Default)]
struct Remote {
    last: Option<Instant>,
    scheduled: bool,
}

impl Bell {
    pub(crate) fn new(pool: PgPool, channel: &'static str) -> Self {
        Self {
            inner: Arc::new(Inner {
                pool,
                channel,
                local: Notify::new(),
                remote: Mutex::default(),
            }),
        }
    }

    /// Messages were committed: wakes this instance's worker now and the other
    /// instances' within `NOTIFY_EVERY`.
    pub(crate) fn ring(&self) {
        self.inner.local.notify_one();
        let wait = {
            let mut remote = self
                .inner
                .remote
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if remote.scheduled {
                return;
            }
            remote.scheduled = true;
            remote.last.map_or(Duration::ZERO, |last| {
                NOTIFY_EVERY.saturating_sub(last.elapsed())
            })
        };
        let inner = self.inner.clone();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            {
                let mut remote = inner.remote.lock().unwrap_or_else(PoisonError::into_inner);
                remote.scheduled = false;
                remote.last = Some(Instant::now());
            }
            // Lost, the other instances find the messages on their next poll.
            if let Err(error) = store::notify(&inner.pool, inner.channel).await {
                tracing::debug!(%error, channel = inner.channel, "NOTIFY after an enqueue");
            }
        });
    }

    /// Resolves once the bell rang (at once if it rang since the last wait).
    pub(crate) async fn rung(&self) {
        self.inner.local.notified().await;
    }
}

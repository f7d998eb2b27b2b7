//! API keys as authentication reads them, cached per instance so that a request costs
//! no query to know who calls. The cache is only trusted while this instance listens
//! for changes: a trigger announces every change of a key or an account on the channel
//! `formsd_keys` on commit (migration 0009), and the entries named are dropped as the
//! notification arrives, so a revocation, a plan change or a deletion made anywhere
//! takes effect on every instance within the notification's delay (milliseconds).
//! Expiry needs no notification: it is checked on every use. When the listening
//! connection breaks, or stops answering the query it is asked whenever it has been
//! quiet for half a second (a link that died silently), notifications may have been
//! missed: the cache is emptied and bypassed until listening again. Entries also age out (`TTL`) as a second safety.

use crate::accounts::store::{self, KeyWithPlan};
use crate::db;
use crate::error::CoreError;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The channel of the trigger of migration 0009.
const CHANNEL: &str = "formsd_keys";
/// The longest an entry is used without a query, notifications or not.
const TTL: Duration = Duration::from_secs(60);
/// Entries kept at most; the cache starts afresh beyond (keys in use fit many times).
const MAX_ENTRIES: usize = 100_000;
/// How long the listening connection may stay quiet before it is asked a query of its
/// own: a link that died silently (no reset, no FIN) would otherwise go unnoticed for
/// minutes, while the cache kept serving keys revoked meanwhile.
const PING_EVERY: Duration = Duration::from_millis(500);
/// How long that query may take before the link counts as dead (the cache is emptied
/// and bypassed until listening again): a silent loss is noticed within about a second.
const PING_DEADLINE: Duration = Duration::from_millis(500);
/// The listening connection's name in `pg_stat_activity`.
pub const APPLICATION_NAME: &str = "formsd-key-listener";

/// A pool of one connection of its own for each listener: a listener dropped on a dead
/// link gives its connection back only when TCP gives up on it (minutes), and must not
/// hold one of the request path's meanwhile. The server is asked to probe the link with
/// TCP keepalives (the client's socket options are not reachable through sqlx), so that
/// it ends its side of a dead link too.
fn listening_pool(pool: &PgPool) -> PgPool {
    let options = (*pool.connect_options())
        .clone()
        .application_name(APPLICATION_NAME)
        .options([
            ("tcp_keepalives_idle", "5"),
            ("tcp_keepalives_interval", "2"),
            ("tcp_keepalives_count", "3"),
        ]);
    sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(5))
        .connect_lazy_with(options)
}

struct Entry {
    key: KeyWithPlan,
    fetched: Instant,
}

/// The per-instance cache of API keys by their lookup (the non-secret prefix).
#[derive(Clone, Default)]
pub(crate) struct KeyCache {
    entries: Arc<Mutex<HashMap<String, Entry>>>,
    /// Whether the cache may be used: true only while notifications are received.
    listening: Arc<AtomicBool>,
    /// Counts notifications (and losses of the connection): a read during which it
    /// moved may predate a change, and is not kept.
    generation: Arc<AtomicU64>,
}

impl KeyCache {
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A panic elsewhere cannot leave a map half-changed: use it as it is.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The key with this lookup: from the cache while it can be trusted, else read
    /// (and kept).
    pub(crate) async fn find(
        &self,
        pool: &PgPool,
        lookup: &str,
    ) -> Result<Option<KeyWithPlan>, CoreError> {
        if self.listening.load(Ordering::Acquire)
            && let Some(entry) = self.entries().get(lookup)
            && entry.fetched.elapsed() < TTL
        {
            return Ok(Some(entry.key.clone()));
        }
        let generation = self.generation.load(Ordering::Acquire);
        let listening = self.listening.load(Ordering::Acquire);
        let found = store::find_key_by_lookup(pool, lookup).await?;
        // Kept only if no notification arrived since before the read: a change that
        // committed after the read's snapshot is announced after it, so either it moved
        // the generation already or it will drop the entry kept now.
        if let Some(key) = &found
            && listening
        {
            // Compared under the lock that `forget` moves it under.
            let mut entries = self.entries();
            if self.generation.load(Ordering::Acquire) == generation {
                if entries.len() >= MAX_ENTRIES {
                    entries.clear();
                }
                entries.insert(
                    lookup.to_owned(),
                    Entry {
                        key: key.clone(),
                        fetched: Instant::now(),
                    },
                );
            }
        }
        Ok(found)
    }

    /// Drops a key changed by this instance at once (the notification of the change
    /// reaches the other instances).
    pub(crate) fn forget_key(&self, lookup: &str) {
        let mut entries = self.entries();
        self.generation.fetch_add(1, Ordering::AcqRel);
        entries.remove(lookup);
    }

    /// Drops the keys of an account changed by this instance at once.
    pub(crate) fn forget_account(&self, account_id: uuid::Uuid) {
        self.drop_where(|key| key.account_id == account_id);
    }

    /// Drops what a notification names: `key:<lookup>` or `account:<id>`; anything
    /// else empties the cache.
    fn forget(&self, payload: &str) {
        match payload.split_once(':') {
            Some(("key", lookup)) => self.forget_key(lookup),
            Some(("account", id)) => match id.parse() {
                Ok(id) => self.forget_account(id),
                Err(_) => self.drop_where(|_| true),
            },
            _ => self.drop_where(|_| true),
        }
    }

    /// Drops the entries `gone` picks, and moves the generation (under the lock) so
    /// that a read in flight is not kept.
    fn drop_where(&self, gone: impl Fn(&KeyWithPlan) -> bool) {
        let mut entries = self.entries();
        self.generation.fetch_add(1, Ordering::AcqRel);
        entries.retain(|_, entry| !gone(&entry.key));
    }

    fn distrust(&self) {
        self.listening.store(false, Ordering::Release);
        self.drop_where(|_| true);
    }

    /// Follows the change notifications for the life of the process.
    pub(crate) fn spawn_listener(&self, pool: PgPool) -> tokio::task::JoinHandle<()> {
        let cache = self.clone();
        tokio::spawn(async move {
            loop {
                let mut listener = match PgListener::connect_with(&listening_pool(&pool)).await {
                    Ok(listener) => listener,
                    Err(error) => {
                        tracing::warn!(%error, "key cache off: cannot listen for key changes");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue;
                    }
                };
                if let Err(error) = listener.listen(CHANNEL).await {
                    tracing::warn!(%error, "key cache off: cannot listen for key changes");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
                // Entries from before may have missed a change: start empty.
                cache.drop_where(|_| true);
                cache.listening.store(true, Ordering::Release);
                loop {
                    match tokio::time::timeout(PING_EVERY, listener.try_recv()).await {
                        Ok(Ok(Some(notification))) => cache.forget(notification.payload()),
                        // The connection broke: changes may have been missed.
                        Ok(Ok(None) | Err(_)) => {
                            cache.distrust();
                            break;
                        }
                        // Quiet for a while: is the link still alive?
                        Err(_) => {
                            let pinged =
                                tokio::time::timeout(PING_DEADLINE, db::ping(&mut listener)).await;
                            if !matches!(pinged, Ok(Ok(()))) {
                                tracing::warn!(
                                    "key cache off: the listening connection stopped answering"
                                );
                                cache.distrust();
                                break;
                            }
                        }
                    }
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    }
}

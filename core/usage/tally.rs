//! Usage counted in memory and written once a second: a request costs no write of its
//! own, and a key's busy day row is updated once per second per instance instead of
//! once per request. A clean stop writes what is pending, so counts are exact then;
//! after `kill -9` at most the last second's counts of that instance are missing.
//! Reading usage adds this instance's pending counts, so a key's own reads are exact.
//!
//! A count is never added twice. Each flush has an id, written with its counts; a flush
//! that fails is kept whole with its id (not merged back into the pending counts) and
//! sent again, before anything newer, until it is known: if its first try committed
//! after all (the connection failed after the commit), the id makes the retry add
//! nothing.

use super::store::{self, Counts};
use crate::db::Replicas;
use crate::error::CoreError;
use chrono::NaiveDate;
use sqlx::PgPool;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use uuid::Uuid;

/// How often pending counts are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// How long a flush's id is kept: far longer than a flush waits to be known (a failed
/// flush is tried again every `FLUSH_EVERY`).
pub const FLUSH_IDS_KEPT: Duration = Duration::from_secs(7 * 24 * 3600);

/// Counts by key and UTC day.
type Batch = HashMap<(Uuid, NaiveDate), Counts>;

/// A flush whose commit is not known: its id and its counts.
struct Unsettled {
    id: Uuid,
    batch: Batch,
}

/// The counts of this instance not yet written, by key and UTC day.
#[derive(Clone, Default)]
pub struct Tally {
    pending: Arc<Mutex<Batch>>,
    /// The last flush, while its commit is not known.
    unsettled: Arc<Mutex<Option<Unsettled>>>,
    /// Held by a flush while its counts are neither pending nor committed, and by a
    /// reader across its read of the table and of the pending counts, so that a read
    /// sees every count exactly once.
    flushing: Arc<tokio::sync::RwLock<()>>,
}

impl Tally {
    fn pending(&self) -> MutexGuard<'_, Batch> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn unsettled(&self) -> MutexGuard<'_, Option<Unsettled>> {
        self.unsettled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a request of the key today (UTC); returns the day it was charged to.
    pub fn request(&self, key_id: Uuid) -> NaiveDate {
        let day = chrono::Utc::now().date_naive();
        self.pending().entry((key_id, day)).or_default().requests += 1;
        day
    }

    /// Counts an error against the day its request was charged to.
    pub fn error(&self, key_id: Uuid, day: NaiveDate) {
        self.pending().entry((key_id, day)).or_default().errors += 1;
    }

    /// The key's daily usage from the table, with this instance's pending counts added.
    pub async fn daily(
        &self,
        replicas: &Replicas,
        key_id: Uuid,
        days: i32,
    ) -> Result<Vec<store::Day>, CoreError> {
        let _reading = self.flushing.read().await;
        // Chosen once no flush of this instance can be half way: a replica then holds
        // every flush whose counts are no longer pending.
        // A failed flush's counts are added unless its commit went through after all.
        let unsettled = self.unsettled().as_ref().map(|u| u.id);
        let (mut daily, unwritten) = replicas
            .read(|pool| async move {
                let daily = store::daily(&pool, key_id, days).await?;
                let unwritten = match unsettled {
                    Some(id) => !store::flushed(&pool, id).await?,
                    None => false,
                };
                Ok((daily, unwritten))
            })
            .await?;
        let pending = self.pending();
        let unsettled = self.unsettled();
        let unwritten = unsettled.as_ref().filter(|_| unwritten).map(|u| &u.batch);
        for batch in std::iter::once(&*pending).chain(unwritten) {
            for day in &mut daily {
                if let Some(counts) = batch.get(&(key_id, day.day)) {
                    day.request_count += counts.requests;
                    day.error_count += counts.errors;
                }
            }
        }
        Ok(daily)
    }

    /// The newest day with requests of each of `keys` (those ever used), from the table
    /// and this instance's pending counts.
    pub async fn last_used(
        &self,
        replicas: &Replicas,
        keys: &[Uuid],
    ) -> Result<HashMap<Uuid, NaiveDate>, CoreError> {
        // As `daily`: no count is between pending and the table while this reads.
        let _reading = self.flushing.read().await;
        let mut last: HashMap<Uuid, NaiveDate> = replicas
            .read(|pool| async move { store::last_used(&pool, keys).await })
            .await?
            .into_iter()
            .collect();
        let pending = self.pending();
        let unsettled = self.unsettled();
        let batches = std::iter::once(&*pending).chain(unsettled.as_ref().map(|u| &u.batch));
        for ((key, day), counts) in batches.flatten() {
            if counts.requests > 0 && keys.contains(key) {
                let newest = last.entry(*key).or_insert(*day);
                *newest = (*newest).max(*day);
            }
        }
        Ok(last)
    }

    /// Writes the pending counts in one statement, after the last flush if its commit is
    /// not known; a flush that fails is kept, with its id, for the next try.
    pub async fn flush(&self, pool: &PgPool) -> Result<(), CoreError> {
        let _writing = self.flushing.write().await;
        let unsettled = self.unsettled().take();
        if let Some(Unsettled { id, batch }) = unsettled
            && let Err(error) = store::add(pool, id, &batch).await
        {
            *self.unsettled() = Some(Unsettled { id, batch });
            return Err(error);
        }
        let batch = std::mem::take(&mut *self.pending());
        if batch.is_empty() {
            return Ok(());
        }
        let id = Uuid::now_v7();
        if let Err(error) = store::add(pool, id, &batch).await {
            *self.unsettled() = Some(Unsettled { id, batch });
            return Err(error);
        }
        Ok(())
    }

    /// Writes pending counts every second for the life of the process.
    pub fn spawn_flusher(&self, pool: PgPool) -> tokio::task::JoinHandle<()> {
        let tally = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(FLUSH_EVERY);
            loop {
                tick.tick().await;
                if let Err(error) = tally.flush(&pool).await {
                    tracing::warn!(%error, "writing usage counts; kept for the next try");
                }
            }
        })
    }
}

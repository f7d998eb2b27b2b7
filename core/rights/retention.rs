//! Retention per form: a form may keep its responses `retention_days` days. Each round
//! of the instances' housekeeping (every minute) deletes, form by form, the responses
//! submitted before the cut-off and the partials first saved before it, with their
//! files and the answers their deliveries carry (`store::delete_responses`).
//!
//! The cut-off moves by whole hours (a response goes within the hour after it turns
//! `retention_days` old), so that a form's summary, which starts its tally again after
//! any delete, is recounted at most once an hour. Deletes run in batches of
//! [`BATCH`] rows, each its own short transaction that takes the form's row (the lock
//! every create of the form takes) only at its end, for a moment, and gives up on it
//! after a bounded wait (the next round takes the batch again): a create of the form
//! waits at most for a batch's last statements and commit, never for its deletes.
//! Between batches the purge rests ([`REST`]), and one instance purges at a time.

use super::store;
use crate::error::CoreError;
use crate::files::store::FileStore;
use chrono::{DateTime, DurationRound, Utc};
use sqlx::PgPool;

/// Rows per statement and transaction.
pub(crate) const BATCH: i64 = 1000;

/// After each batch the purge rests this many times as long as the batch took, so that
/// it takes at most a fifth of one connection's time while respondents submit. At 1M
/// responses on two cores (`cargo bench --bench retention`): flat out, 28,806 rows/s
/// left creates to the same form at 0.39x their rate; resting 3 times, 5,096 rows/s at
/// 0.77x.
const REST: u32 = 4;

/// What a round removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Purged {
    /// Forms that set a retention.
    pub forms: usize,
    pub responses: u64,
    pub partials: u64,
}

/// Responses submitted before this are past a retention of `days` at `now`.
pub(crate) fn cutoff(now: DateTime<Utc>, days: i32) -> DateTime<Utc> {
    let hour = now
        .duration_trunc(chrono::Duration::hours(1))
        .unwrap_or(now);
    hour.checked_sub_signed(chrono::Duration::days(i64::from(days)))
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// One round over every form that sets a retention, by one instance at a time (an
/// advisory lock held on a connection of its own: another instance's round finds it
/// taken and leaves the work to it, so that the purges' rests are not undone by several
/// instances purging at once). A form whose batch fails (its row held too long, the
/// database gone) is logged and left to the next round. `None`: another instance is
/// applying retention.
pub(crate) async fn purge(pool: &PgPool, files: &FileStore) -> Result<Option<Purged>, CoreError> {
    // Most rounds find no form with a retention: no connection is held for them.
    if !store::any_retained(pool).await? {
        return Ok(Some(Purged::default()));
    }
    let mut holder = pool.acquire().await?;
    if !store::take_retention_lock(&mut holder).await? {
        return Ok(None);
    }
    let purged = purge_all(pool, files).await;
    // A lock left on a pooled connection would keep every later round out: a
    // connection that cannot give it back is closed, which does.
    if store::give_back_retention_lock(&mut holder).await.is_err() {
        holder.close_on_drop();
    }
    purged.map(Some)
}

async fn purge_all(pool: &PgPool, files: &FileStore) -> Result<Purged, CoreError> {
    let now = Utc::now();
    let forms = store::retained_forms(pool).await?;
    let mut purged = Purged {
        forms: forms.len(),
        ..Purged::default()
    };
    for form in forms {
        let before = cutoff(now, form.days);
        if let Err(error) = purge_form(pool, files, form.id, before, &mut purged).await {
            tracing::warn!(form_id = %form.id, %error, "applying a form's retention");
        }
    }
    Ok(purged)
}

async fn purge_form(
    pool: &PgPool,
    files: &FileStore,
    form_id: uuid::Uuid,
    before: DateTime<Utc>,
    purged: &mut Purged,
) -> Result<(), CoreError> {
    loop {
        let started = std::time::Instant::now();
        let mut tx = pool.begin().await?;
        store::bound_lock_wait(&mut tx).await?;
        let ids = store::old_responses(&mut tx, form_id, before, BATCH).await?;
        if ids.is_empty() {
            break;
        }
        let deleted = store::delete_responses(&mut tx, form_id, &ids).await?;
        tx.commit().await?;
        purged.responses += deleted.responses;
        purged.partials += deleted.partials;
        super::remove_files(pool, files, deleted).await;
        if ids.len() < BATCH.unsigned_abs() as usize {
            break;
        }
        tokio::time::sleep(started.elapsed() * REST).await;
    }
    loop {
        let started = std::time::Instant::now();
        let (n, staged) = store::delete_old_partials(pool, form_id, before, BATCH).await?;
        purged.partials += n;
        let deleted = store::Deleted {
            staged,
            ..store::Deleted::default()
        };
        super::remove_files(pool, files, deleted).await;
        if n < BATCH.unsigned_abs() {
            break;
        }
        tokio::time::sleep(started.elapsed() * REST).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cutoff_moves_by_whole_hours() {
        let at = |s: &str| {
            DateTime::parse_from_rfc3339(s)
                .map(|t| t.with_timezone(&Utc))
                .unwrap_or_default()
        };
        assert_eq!(
            cutoff(at("2026-11-28T10:59:59Z"), 30),
            at("2026-10-29T10:00:00Z")
        );
        assert_eq!(
            cutoff(at("2026-11-28T11:00:00Z"), 1),
            at("2026-11-27T11:00:00Z")
        );
    }
}

//! The rollup: keeps each form's stored tally (`store::summary`) close behind its
//! responses, so that a summary adds up only the responses since the last rollup.
//!
//! Each round continues the forms that are behind, a batch of responses per form per
//! transaction, under the lock of the form's rollup row (several instances share the
//! work without counting a response twice). It reads the responses after the stored
//! tally in the same order they became visible, so what it stores is always "every
//! response up to a time".

use super::filter::Filter;
use super::store::{Selection, Statuses, Window, summary as sql};
use crate::error::CoreError;
use crate::forms::logic;
use sqlx::PgPool;
use tokio_stream::StreamExt;
use uuid::Uuid;

/// Responses counted per form per transaction: bounds how long a rollup holds its lock
/// and a connection.
pub(crate) const BATCH: i64 = 20_000;
/// How often a round runs.
pub(crate) const EVERY: std::time::Duration = std::time::Duration::from_secs(2);
/// Forms continued per round.
const FORMS_PER_ROUND: i64 = 100;

/// One round: continues the forms that are behind; returns how many responses it
/// counted.
pub async fn round(pool: &PgPool) -> Result<u64, CoreError> {
    let mut counted = 0;
    for form_id in sql::behind(pool, FORMS_PER_ROUND).await? {
        counted += roll(pool, form_id).await?;
    }
    Ok(counted)
}

/// Counts up to `BATCH` more responses of one form into its stored tally.
pub async fn roll(pool: &PgPool, form_id: Uuid) -> Result<u64, CoreError> {
    let mut tx = pool.begin().await?;
    let Some(locked) = sql::lock(&mut tx, form_id).await? else {
        return Ok(0);
    };
    let (mut tally, through) = match (locked.tally, locked.through_at) {
        (Some(tally), Some(through)) => (tally, Some(through)),
        _ => Default::default(),
    };
    let fields = locked.fields;
    let paged = logic::has_pages(&fields);
    let everything = Filter::default();
    let sel = Selection {
        form_id,
        window: Window::new(through, None),
        statuses: Statuses::Completed,
        filter: &everything,
    };
    let (mut counted, mut last) = (0, None);
    {
        let mut rows = sql::completed_rows(&mut tx, &sel, Some(BATCH))?;
        while let Some(row) = rows.next().await {
            let row = row?;
            tally.add(&row, &fields, paged);
            last = Some(row.submitted_at);
            counted += 1;
        }
    }
    if let Some(last) = last {
        sql::save(&mut tx, form_id, last, &tally).await?;
    }
    tx.commit().await?;
    Ok(counted)
}

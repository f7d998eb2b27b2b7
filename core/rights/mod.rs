//! Data rights (issue 33 §3): what the service deletes for the people whose answers it
//! holds. `retention` deletes a form's responses past its `retention_days`, every
//! minute; `erasure` finds and deletes a respondent's responses on request. Both
//! delete with `store::delete_responses`, which takes every copy of the answers along.
//! The book's page: docs/src/using/data-rights.md.

pub(crate) mod erasure;
pub(crate) mod retention;
pub(crate) mod store;

use crate::error::CoreError;
use crate::files::store::FileStore;
use sqlx::PgPool;

/// Longest retention: a hundred years.
pub(crate) const MAX_RETENTION_DAYS: i32 = 36_500;

/// Checks a form's `retention_days` (None: kept until deleted).
pub(crate) fn check_retention(days: Option<i32>) -> Result<(), CoreError> {
    match days {
        Some(d) if !(1..=MAX_RETENTION_DAYS).contains(&d) => Err(CoreError::Validation(format!(
            "retention_days must be a whole number of days from 1 to {MAX_RETENTION_DAYS}, or null"
        ))),
        _ => Ok(()),
    }
}

/// Removes, after the commit, the objects of deleted files and the staged files of
/// deleted partials. Failures are logged (see `FileStore::remove`); the staged-file
/// sweep takes any left behind.
pub(crate) async fn remove_files(pool: &PgPool, files: &FileStore, deleted: store::Deleted) {
    files.remove(deleted.objects).await;
    // `unstage` takes a bounded batch at a time.
    for chunk in deleted.staged.chunks(400) {
        files.unstage(pool, chunk).await;
    }
}

/// The reply of EraseRespondent.
pub(crate) fn erasure_to_pb(done: erasure::Erasure) -> crate::pb::EraseRespondentResponse {
    use crate::pb::{self, convert};
    pb::EraseRespondentResponse {
        matches: done
            .matches
            .into_iter()
            .map(|m| pb::ErasedResponse {
                id: m.id.to_string(),
                form_id: m.form_id.to_string(),
                form_title: m.form_title,
                submitted_at: Some(convert::timestamp(m.submitted_at)),
                status: if m.partial {
                    pb::ResponseStatus::Partial
                } else {
                    pb::ResponseStatus::Completed
                }
                .into(),
            })
            .collect(),
        erased: done.erased,
        truncated: done.truncated,
    }
}

//! Erasure of a respondent: every response and partial of the caller's account whose
//! answers hold a value (an address, a name), listed, and unless it is a dry run
//! deleted with their files and every copy the service keeps of their answers.
//!
//! A value matches an answer's string (at any depth: an "other" text, a file's name)
//! when they are equal once both are trimmed; a value with an `@` (an address) whatever
//! their case. The search text's trigram index (migration 0016) finds the candidates,
//! the answers decide. Copies: the responses' search text and summary tally (with
//! them), their files (rows, and objects after the commit), partials (staged files
//! too), the answers of their webhook deliveries (pending ones are still sent, emptied,
//! as when one response is deleted) and the receivers' replies, the account's
//! idempotency records whose reply holds one of them. Notifications copy no answers.

use super::store::{self, Match, Needle};
use crate::error::CoreError;
use crate::files::store::FileStore;
use sqlx::PgPool;
use std::collections::BTreeMap;
use uuid::Uuid;

/// Most responses one call lists (and erases): a bounded transaction.
pub(crate) const MAX_MATCHES: usize = 1000;
/// Longest value looked for.
const MAX_VALUE: usize = 1000;

/// What one call found, and whether it deleted it.
pub(crate) struct Erasure {
    pub matches: Vec<Match>,
    pub erased: bool,
    pub truncated: bool,
}

/// Escapes `LIKE`'s wildcards: the value is looked for as it is.
fn like_escaped(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Finds, and unless `dry_run` erases, the responses of `account_id` holding `value`.
pub(crate) async fn erase(
    pool: &PgPool,
    files: &FileStore,
    actor: &crate::audit::Actor,
    value: &str,
    dry_run: bool,
) -> Result<Erasure, CoreError> {
    let account_id = actor
        .account_id
        .ok_or_else(|| CoreError::Internal("an erasure without an account".into()))?;
    let value = value.trim();
    if value.is_empty() {
        return Err(CoreError::validation("value is required"));
    }
    if value.chars().count() > MAX_VALUE {
        return Err(CoreError::Validation(format!(
            "value must be at most {MAX_VALUE} characters"
        )));
    }
    let pattern = format!("%{}%", like_escaped(&crate::responses::search::fold(value)));
    let needle = Needle {
        pattern: &pattern,
        value,
        any_case: value.contains('@'),
    };
    let limit = i64::try_from(MAX_MATCHES + 1).unwrap_or(i64::MAX);
    let mut tx = pool.begin().await?;
    let mut matches = store::find(&mut *tx, account_id, &needle, limit).await?;
    let truncated = matches.len() > MAX_MATCHES;
    matches.truncate(MAX_MATCHES);
    if dry_run || matches.is_empty() {
        return Ok(Erasure {
            matches,
            erased: false,
            truncated,
        });
    }
    let mut by_form: BTreeMap<Uuid, Vec<Uuid>> = BTreeMap::new();
    for m in &matches {
        by_form.entry(m.form_id).or_default().push(m.id);
    }
    let forms: Vec<Uuid> = by_form.keys().copied().collect();
    // Forms first, in id order, as a response delete takes its form: no deadlock.
    store::lock_forms(&mut tx, account_id, &forms).await?;
    let mut deleted = store::Deleted::default();
    for (form_id, ids) in &by_form {
        let d = store::delete_responses(&mut tx, *form_id, ids).await?;
        deleted.responses += d.responses;
        deleted.partials += d.partials;
        deleted.objects.extend(d.objects);
        deleted.staged.extend(d.staged);
    }
    let ids: Vec<Uuid> = matches.iter().map(|m| m.id).collect();
    store::delete_idempotency_replies(&mut tx, account_id, &ids).await?;
    // In the trail, in this transaction: who erased responses of which forms (an entry
    // per form), never the value.
    for form_id in &forms {
        crate::audit::record(
            &mut tx,
            actor,
            "EraseRespondent",
            &crate::audit::Target::form(*form_id),
            &["responses"],
            crate::audit::Outcome::Done,
        )
        .await?;
    }
    tx.commit().await?;
    tracing::info!(
        %account_id,
        responses = deleted.responses,
        partials = deleted.partials,
        "respondent erased"
    );
    super::remove_files(pool, files, deleted).await;
    Ok(Erasure {
        matches,
        erased: true,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_are_literal() {
        assert_eq!(like_escaped("50%_a\\b"), "50\\%\\_a\\\\b");
    }
}

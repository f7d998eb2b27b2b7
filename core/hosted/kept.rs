//! Files that survive a refused page. A browser never fills a file input again, so a
//! visitor whose page was refused (a required question left out, a typo in an address)
//! would have to find and choose each file once more, and the page would drop it
//! silently if they did not. Instead, the files of a refused post stay staged for as
//! long as the refused page may be sent (its start token's lifetime), and it names each
//! (`HostedFormPage.kept_files`) with a token that the next post sends back as the
//! field's answer, `{"kept": token}` (the page's ticked "keep" box). The token is bound
//! to the form and to the visitor's nonce (`token::Tokens::keep_file`): nobody else
//! can attach the file. A new file chosen for the same field replaces the kept one.

use super::Hosted;
use crate::error::CoreError;
use crate::files::Staged;
use crate::pb;
use serde_json::{Map, Value, json};
use uuid::Uuid;

/// A refused submission, with the files its page keeps for the next post.
pub(super) struct Refused {
    pub error: CoreError,
    pub kept: Vec<pb::KeptFile>,
}

impl From<CoreError> for Refused {
    fn from(error: CoreError) -> Self {
        Self {
            error,
            kept: Vec::new(),
        }
    }
}

/// Takes the kept files' tokens out of `answers` (`{"kept": token}` as a field's
/// answer): by field id.
pub(super) fn take_tokens(answers: &mut Map<String, Value>) -> Vec<(String, String)> {
    let fields: Vec<String> = answers
        .iter()
        .filter(|(_, v)| v.get("kept").is_some_and(Value::is_string))
        .map(|(k, _)| k.clone())
        .collect();
    fields
        .into_iter()
        .filter_map(|field| {
            let answer = answers.remove(&field)?;
            let token = answer.get("kept")?.as_str()?.to_owned();
            Some((field, token))
        })
        .collect()
}

/// Whether a refusal shows the page again (and so keeps its files for the next post).
fn shows_the_page_again(error: &CoreError) -> bool {
    matches!(
        error,
        CoreError::Validation(_)
            | CoreError::FieldErrors(_)
            | CoreError::UnstorableText
            | CoreError::ProofOfWork(_)
    )
}

impl Hosted {
    /// The files the tokens keep, staged for this submission: each only if its token
    /// is this visitor's on this form, and the file still waits, unattached, for the
    /// field it was chosen for. A field with a new file (in `staged` already) keeps
    /// that one. Their wait is extended to a submission's grace.
    pub(super) async fn add_kept(
        &self,
        staged: &mut Staged,
        tokens: Vec<(String, String)>,
        form_id: Uuid,
        nonce: &str,
    ) -> Result<(), CoreError> {
        let wanted: Vec<(String, Uuid)> = tokens
            .into_iter()
            .filter(|(field, _)| !staged.answers.contains_key(field))
            .filter_map(|(field, token)| {
                Some((field, self.tokens.kept_file(&token, form_id, nonce)?))
            })
            .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        let ids: Vec<Uuid> = wanted.iter().map(|(_, id)| *id).collect();
        let rows = crate::files::store::keep_staged(&self.pool, &ids, self.grace_until()).await?;
        for row in rows {
            if wanted
                .iter()
                .any(|(f, id)| *id == row.id && *f == row.field_id)
            {
                staged.ids.push(row.id);
                staged.answers.insert(
                    row.field_id,
                    json!({"file_id": row.id, "name": row.file_name, "size": row.size,
                           "content_type": row.content_type}),
                );
            }
        }
        Ok(())
    }

    /// What a refused submission with `staged` files answers: a refusal that shows the
    /// page again keeps them waiting (as a saved page's files wait) and names them for
    /// the page; any other removes them.
    pub(super) async fn refused(
        &self,
        error: CoreError,
        staged: &Staged,
        form_id: Uuid,
        nonce: &str,
    ) -> Refused {
        if staged.ids.is_empty() {
            return error.into();
        }
        if !shows_the_page_again(&error) {
            self.file_store.unstage(&self.pool, &staged.ids).await;
            return error.into();
        }
        // As long as the refused page may be sent: its start token's lifetime.
        let until = chrono::Utc::now() + chrono::Duration::hours(super::token::MAX_AGE_HOURS);
        let kept = match crate::files::store::keep_staged(&self.pool, &staged.ids, until).await {
            Ok(rows) => rows,
            // Not kept, then: the page asks for the files again, as before.
            Err(e) => {
                tracing::warn!(error = %e, "keeping the files of a refused page");
                return error.into();
            }
        };
        Refused {
            error,
            kept: kept
                .into_iter()
                .map(|row| pb::KeptFile {
                    token: self.tokens.keep_file(row.id, form_id, nonce),
                    field_id: row.field_id,
                    file_name: row.file_name,
                    size: row.size,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_kept_answers_are_taken() {
        let mut answers = json!({"a": {"kept": "t1"}, "b": "text", "c": {"other": "x"},
                                 "d": {"kept": 3}})
        .as_object()
        .cloned()
        .unwrap_or_default();
        assert_eq!(
            take_tokens(&mut answers),
            [("a".to_owned(), "t1".to_owned())]
        );
        assert!(!answers.contains_key("a"));
        assert_eq!(answers.len(), 3);
    }
}

//! Forms with pages (or conditions) on the hosted page. The core decides, from the
//! answers so far, which page a visitor sees and which of its fields (`forms::logic`);
//! each posted page is checked and saved as a partial response
//! (`responses::store::partial`), and the last page shown completes it, exactly once.
//!
//! A form without page breaks or conditions has no progress: its page is the single
//! page it always was, posted whole.

use super::Hosted;
use crate::crypto;
use crate::error::CoreError;
use crate::files::Staged;
use crate::forms::logic::{keep_shown, page_fields, pages, shown_pages};
use crate::forms::{FieldKind, Form, now_millis};
use crate::pb::{self, convert};
use crate::responses::TargetForm;
use crate::responses::create::locked;
use crate::responses::create::{Source, Submission};
use crate::responses::store::partial::{self, Partial};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::sync::Arc;
use uuid::Uuid;

/// What a visitor brings to a page of a form with pages.
pub(super) struct PagePost {
    pub page: usize,
    pub back: bool,
    pub resume_token: String,
    pub answers: Map<String, Value>,
    pub staged: Staged,
    pub started_at: DateTime<Utc>,
    pub device: super::device::Device,
    /// Whether the post carried a proof-of-work solution (verified and spent).
    pub proven: bool,
    /// Who posts it (`bounds::Visitors`).
    pub visitor: Vec<u8>,
    /// The language the page was shown in (`submission::language_tag`).
    pub language: Option<String>,
}

/// Whether `form` is shown page by page (it has page breaks or conditions).
pub(super) fn has_progress(form: &Form) -> bool {
    form.fields
        .iter()
        .any(|f| f.kind == FieldKind::PageBreak || !f.show_if.is_empty())
}

/// The shown pages of `form` given `answers`, in order.
fn shown(form: &Form, answers: &Map<String, Value>) -> Vec<usize> {
    shown_pages(&form.fields, answers)
        .into_iter()
        .filter_map(|(page, shown)| shown.then_some(page))
        .collect()
}

/// The progress to show: the page `asked` if the visitor reached it and it is shown,
/// else the page they are at.
pub(super) fn progress(
    form: &Form,
    partial: Option<&Partial>,
    resume_token: &str,
    asked: Option<usize>,
) -> pb::HostedProgress {
    let empty = Map::new();
    let answers = partial.map_or(&empty, |p| &p.answers);
    let reached = partial.map_or(1, |p| usize::try_from(p.page).unwrap_or(1));
    let shown = shown(form, answers);
    let page = asked
        .filter(|p| *p <= reached && shown.contains(p))
        .or_else(|| shown.iter().copied().find(|p| *p >= reached))
        .or_else(|| shown.last().copied())
        .unwrap_or(1);
    let previous = shown.iter().copied().filter(|p| *p < page).max();
    let count = pages(&form.fields).last().copied().unwrap_or(1);
    // The page counts among those shown even when the answers would hide it (a page
    // asked for by a link): a position past the count would read as nonsense.
    let position = shown.iter().filter(|p| **p < page).count() + 1;
    let shown_count = shown.len().max(position);
    let int = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    pb::HostedProgress {
        page: int(page),
        page_count: int(count),
        fields: page_fields(&form.fields, answers, page)
            .iter()
            .map(|f| f.id.to_string())
            .collect(),
        answers: Some(convert::object_to_struct(answers)),
        resume_token: if partial.is_some() {
            resume_token.to_owned()
        } else {
            String::new()
        },
        previous_page: int(previous.unwrap_or(0)),
        position: int(position),
        shown_count: int(shown_count),
    }
}

impl Hosted {
    /// The visitor's partial of `form`, if their resume token names one.
    pub(super) async fn partial_of(
        &self,
        form: &Form,
        resume_token: &str,
    ) -> Result<Option<Partial>, CoreError> {
        if resume_token.is_empty() {
            return Ok(None);
        }
        partial::find(&self.pool, form.id, &crypto::digest(resume_token)).await
    }

    /// Checks and saves one page of `form`; the reply names the next page, or is the
    /// confirmation once the last page shown is posted. Staged files are the caller's
    /// to unstage on error.
    pub(super) async fn submit_page(
        &self,
        form: Form,
        post: PagePost,
    ) -> Result<pb::SubmitHostedFormResponse, CoreError> {
        let partial = self.partial_of(&form, &post.resume_token).await?;
        if let Some(done) = partial.as_ref().filter(|p| p.completed) {
            // Posted again after completion (a double submit, another tab): the same
            // response, stored once.
            return Ok(confirmation(&form.settings, done.id.to_string()));
        }
        let count = pages(&form.fields).last().copied().unwrap_or(1);
        if post.page == 0 || post.page > count {
            return Err(CoreError::Validation(format!(
                "page must be from 1 to {count}"
            )));
        }
        let token = &post.resume_token;
        let page_of = pages(&form.fields);
        if post.back {
            let partial = match partial {
                Some(p) => Some(self.keep_unjudged(&form, p, &post, &page_of).await?),
                None => None,
            };
            let shown = shown(&form, partial.as_ref().map_or(&Map::new(), |p| &p.answers));
            let previous = shown.into_iter().filter(|p| *p < post.page).max();
            return Ok(pb::SubmitHostedFormResponse {
                progress: Some(progress(&form, partial.as_ref(), token, previous)),
                ..Default::default()
            });
        }
        let saved = partial.as_ref().map(|p| &p.answers);
        // Earlier pages' answers as saved (still shown), this page's as posted.
        let mut given = saved.map_or_else(Map::new, |s| keep_shown(&form.fields, s, post.page));
        let mut uploaded = Map::new();
        for (field, page) in form.fields.iter().zip(&page_of) {
            let id = field.id.to_string();
            if *page == post.page {
                given.remove(&id);
            }
            if field.kind == FieldKind::FileUpload
                && let Some(file) = given.remove(&id)
            {
                uploaded.insert(id, file);
            }
        }
        for (id, answer) in post.answers {
            let on_page = form
                .fields
                .iter()
                .zip(&page_of)
                .any(|(f, p)| *p == post.page && f.id.to_string() == id);
            if !on_page {
                return Err(CoreError::Validation(format!(
                    "answers.{id} is not a field of page {}",
                    post.page
                )));
            }
            given.insert(id, answer);
        }
        uploaded.extend(post.staged.answers.clone());
        let target = TargetForm {
            id: form.id,
            account_id: form.account_id,
            status: form.status,
            fields: form.fields.clone(),
            settings: Arc::new(form.settings.clone()),
            response_count: 0,
            last_submitted_at: None,
        };
        let checked = target.validate_through(given, &uploaded, Some(post.page))?;
        let next = shown(&form, &checked).into_iter().find(|p| *p > post.page);
        let file_ids: Vec<Uuid> = partial
            .iter()
            .flat_map(|p| p.file_ids.iter().copied())
            .chain(post.staged.ids.iter().copied())
            .collect();
        let Some(next) = next else {
            let (files, answers): (Map<String, Value>, Map<String, Value>) =
                checked.into_iter().partition(|(id, _)| {
                    form.fields
                        .iter()
                        .any(|f| f.kind == FieldKind::FileUpload && f.id.to_string() == *id)
                });
            let submission = Submission {
                id: partial.as_ref().map(|p| p.id),
                answers,
                metadata: Map::new(),
                device_type: post.device.device_type,
                browser: post.device.browser,
                os: post.device.os,
                started_at: Some(partial.as_ref().map_or(post.started_at, |p| p.started_at)),
                from: Source::Page {
                    short_id: form.short_id.clone(),
                    proven: post.proven,
                },
                files: Staged {
                    ids: file_ids,
                    answers: files,
                },
                drop_unshown: false,
                language: post.language.clone(),
            };
            return match partial {
                Some(partial) => self.complete(&form, partial.id, submission).await,
                None => {
                    let stored = self.batcher.submit(form.id, submission).await?;
                    Ok(confirmation(
                        &stored.settings,
                        stored.response.id.to_string(),
                    ))
                }
            };
        };
        // Answers of later pages, given before the visitor came back here, stay saved
        // (to fill those pages again); they are checked when their page is posted.
        let mut answers = checked;
        if let Some(saved) = saved {
            for (field, page) in form.fields.iter().zip(&page_of) {
                let id = field.id.to_string();
                if *page > post.page
                    && let Some(answer) = saved.get(&id)
                {
                    answers.insert(id, answer.clone());
                }
            }
        }
        let new = partial.is_none();
        self.check_room(&form, &post.visitor, new, &post.staged.ids)
            .await?;
        let now = now_millis();
        // A page saved from elsewhere than the partial's last save (someone else's
        // resume link, or another device) moves the response to this visitor under a
        // new token: the old one, and so whoever made or holds the link, reaches it no
        // more and never sees what this visitor answers. Saved again from the same
        // place (a double click, a link copied to continue later), the token stays.
        let (partial, token, before) = match partial {
            Some(p) if p.visitor.as_deref() != Some(post.visitor.as_slice()) => {
                let before = crypto::digest(&post.resume_token);
                (p, crypto::new_token(), Some(before))
            }
            Some(p) => (p, post.resume_token.clone(), None),
            None => (
                Partial {
                    id: Uuid::now_v7(),
                    form_id: form.id,
                    answers: Map::new(),
                    file_ids: Vec::new(),
                    page: 1,
                    device_type: post.device.device_type,
                    browser: post.device.browser,
                    os: post.device.os,
                    started_at: post.started_at,
                    completed: false,
                    visitor: None,
                    language: None,
                },
                crypto::new_token(),
                None,
            ),
        };
        let partial = Partial {
            answers,
            file_ids,
            page: i32::try_from(next).unwrap_or(i32::MAX),
            language: post.language.clone(),
            ..partial
        };
        let digest = crypto::digest(&token);
        let files_until = self.page_files_until();
        let keys = partial::Keys {
            digest: &digest,
            before: before.as_deref(),
            visitor: &post.visitor,
        };
        if !partial::save(&self.pool, &partial, keys, now, files_until).await? {
            // Completed meanwhile (another tab posted its last page).
            return Ok(confirmation(&form.settings, partial.id.to_string()));
        }
        Ok(pb::SubmitHostedFormResponse {
            progress: Some(progress(&form, Some(&partial), &token, Some(next))),
            ..Default::default()
        })
    }

    /// Back: the answers typed on the page left are saved as given, unjudged (they are
    /// checked when the page is posted with Next), so that coming back to it shows
    /// them again; files are not (Back sends none). Saved only from the place that
    /// last saved the partial: a Back from someone else's link writes nothing.
    async fn keep_unjudged(
        &self,
        form: &Form,
        partial: Partial,
        post: &PagePost,
        page_of: &[usize],
    ) -> Result<Partial, CoreError> {
        if partial.visitor.as_deref() != Some(post.visitor.as_slice()) {
            return Ok(partial);
        }
        let mut answers = partial.answers.clone();
        for (field, page) in form.fields.iter().zip(page_of) {
            if *page != post.page || field.kind == FieldKind::FileUpload {
                continue;
            }
            let id = field.id.to_string();
            match post.answers.get(&id) {
                Some(answer) => answers.insert(id, answer.clone()),
                None => answers.remove(&id),
            };
        }
        let partial = Partial { answers, ..partial };
        let digest = crypto::digest(&post.resume_token);
        let keys = partial::Keys {
            digest: &digest,
            before: None,
            visitor: &post.visitor,
        };
        partial::save(
            &self.pool,
            &partial,
            keys,
            now_millis(),
            self.page_files_until(),
        )
        .await?;
        Ok(partial)
    }

    /// Stores the response of the partial `id`, once: under the partial's row lock, in
    /// the transaction that stores the response and marks the partial completed.
    async fn complete(
        &self,
        form: &Form,
        id: Uuid,
        submission: Submission,
    ) -> Result<pb::SubmitHostedFormResponse, CoreError> {
        let mut tx = self.pool.begin().await?;
        match partial::lock(&mut tx, id).await? {
            None => {
                return Err(CoreError::Validation(
                    "these saved answers are no longer kept: please start the form again".into(),
                ));
            }
            Some(true) => {
                tx.commit().await?;
                return Ok(confirmation(&form.settings, id.to_string()));
            }
            Some(false) => {}
        }
        let response = locked::attempt_one(&mut tx, &self.config, form.id, submission).await?;
        partial::complete(&mut tx, id, response.submitted_at).await?;
        tx.commit().await?;
        Ok(confirmation(&form.settings, response.id.to_string()))
    }

    /// Where staged files of a page wait: until the partial they join could expire.
    pub(super) fn page_files_until(&self) -> DateTime<Utc> {
        chrono::Duration::from_std(self.config.partial_retention)
            .ok()
            .and_then(|keep| Utc::now().checked_add_signed(keep))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }
}

/// The reply to a stored (or a robot's dropped) submission, from the form's settings.
pub(crate) fn confirmation(
    settings: &Map<String, serde_json::Value>,
    response_id: String,
) -> pb::SubmitHostedFormResponse {
    let text = |name| {
        settings
            .get(name)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    pb::SubmitHostedFormResponse {
        response_id,
        confirmation_message: text("confirmation_message"),
        redirect_url: text("redirect_url"),
        progress: None,
        quiz_score: None,
        // A mark for `Hosted::finish`, which scores the response (or drops the mark):
        // the settings are at hand here, the answers there.
        quiz_max_score: (settings.get("show_quiz_score") == Some(&serde_json::Value::Bool(true)))
            .then_some(0),
    }
}

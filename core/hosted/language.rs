//! What a completed hosted submission is answered, beyond the form's settings: the
//! confirmation message and redirect in the language the page was shown in, their
//! recalls (`{{ref}}`) filled from the response (an option by its label in that
//! language; a redirect's percent-encoded), and a quiz's score when the owner shows
//! it (`settings.show_quiz_score`).
//!
//! The form is read again only when there is something to do: a language, a recall, or
//! a score to show; the response's answers only for a recall or a score. The plain
//! case costs nothing more, a page in another language one read of the form.

use super::Hosted;
use crate::forms::reading::Reading;
use crate::forms::{Form, quiz_score};
use crate::pb;
use serde_json::{Map, Value};
use uuid::Uuid;

/// Whether the reply needs the form read again.
fn needs_form(language: Option<&str>, reply: &pb::SubmitHostedFormResponse) -> bool {
    let recalls = |t: &Option<String>| t.as_deref().is_some_and(crate::recall::has_recall);
    language.is_some_and(|t| !t.is_empty())
        || recalls(&reply.confirmation_message)
        || recalls(&reply.redirect_url)
}

impl Hosted {
    /// Finishes the reply to a completed submission (see the module). A form or a
    /// response that cannot be read now leaves the reply as the settings made it.
    pub(super) async fn finish(
        &self,
        short_id: &str,
        language: Option<&str>,
        reply: &mut pb::SubmitHostedFormResponse,
    ) {
        // `confirmation` marks a reply whose form shows scores (`quiz_max_score`
        // set): it is scored here, or the mark goes.
        let shows_score = reply.quiz_max_score.take().is_some();
        if reply.progress.is_some() || !needs_form(language, reply) && !shows_score {
            return;
        }
        let Ok((form, _)) = self.published(short_id).await else {
            return;
        };
        translate(&form, language, reply);
        let recalls = |t: &Option<String>| t.as_deref().is_some_and(crate::recall::has_recall);
        if !shows_score && !recalls(&reply.confirmation_message) && !recalls(&reply.redirect_url) {
            return;
        }
        let answers = match Uuid::parse_str(&reply.response_id) {
            Ok(id) => super::store::answers(&self.pool, form.id, id)
                .await
                .ok()
                .flatten()
                .unwrap_or_default(),
            // A robot's dropped submission: nothing to recall, nothing scored.
            Err(_) => Map::new(),
        };
        recall(&form, &answers, language, reply);
        if shows_score
            && !reply.response_id.is_empty()
            && let Some((score, max)) = quiz_score(&form.fields, &answers)
        {
            reply.quiz_score = Some(score);
            reply.quiz_max_score = Some(max);
        }
    }
}

/// Puts the confirmation message and redirect in `language` (the form's translation,
/// where it has them) into the reply.
fn translate(form: &Form, language: Option<&str>, reply: &mut pb::SubmitHostedFormResponse) {
    let translation = language.and_then(|tag| form.languages.translations.get(tag));
    if let Some(translation) = translation {
        if let Some(message) = &translation.confirmation_message {
            reply.confirmation_message = Some(message.clone());
        }
        if let Some(url) = &translation.redirect_url {
            reply.redirect_url = Some(url.clone());
        }
    }
}

/// Fills the recalls of the reply's confirmation message and redirect from `answers`
/// (an option by its label in `language`).
fn recall(
    form: &Form,
    answers: &Map<String, Value>,
    language: Option<&str>,
    reply: &mut pb::SubmitHostedFormResponse,
) {
    let reading = Reading::of(form, answers, language);
    if let Some(message) = &reply.confirmation_message {
        reply.confirmation_message = Some(reading.recall(message));
    }
    if let Some(url) = &reply.redirect_url {
        // A redirect whose recalls would reach its host (refused at save) goes
        // without them.
        reply.redirect_url = Some(
            reading
                .recall_in_url(url)
                .unwrap_or_else(|| crate::recall::recall(url, |_| Some(String::new()))),
        );
    }
}

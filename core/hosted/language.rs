//! The language of a hosted submission: a page shown in one of the form's further
//! languages thanks the respondent (or sends them on) in that language.

use super::Hosted;
use crate::pb;

impl Hosted {
    /// Puts the confirmation message and redirect of the form's translation into `tag`
    /// in place of its own, in the reply to a completed submission. The edge names a
    /// language only when the page was not in the form's default one, so the form is
    /// read again only then; a form that cannot be read now keeps its own texts.
    pub(super) async fn in_language(
        &self,
        short_id: &str,
        tag: &str,
        reply: &mut pb::SubmitHostedFormResponse,
    ) {
        if reply.progress.is_some() || tag.is_empty() {
            return;
        }
        let Ok((form, _)) = self.published(short_id).await else {
            return;
        };
        let Some(translation) = form.languages.translations.get(tag) else {
            return;
        };
        if let Some(message) = &translation.confirmation_message {
            reply.confirmation_message = Some(message.clone());
        }
        if let Some(url) = &translation.redirect_url {
            reply.redirect_url = Some(url.clone());
        }
    }
}

//! The look of a published form's page: its theme (for the page's style sheet) and its
//! logo, read by the form's short id, as its page is.

use super::Hosted;
use crate::error::CoreError;
use crate::forms::logo::{self, theme_to_pb};
use crate::pb;

impl Hosted {
    /// The theme of the published form at `short_id` (a closed form keeps its look).
    pub(super) async fn theme(
        &self,
        short_id: &str,
    ) -> Result<pb::GetHostedThemeResponse, CoreError> {
        let (form, _) = self.published(short_id).await?;
        Ok(pb::GetHostedThemeResponse {
            theme: form.theme.map(theme_to_pb),
        })
    }

    /// The logo of the published form at `short_id`; NOT_FOUND without one.
    pub(super) async fn logo(
        &self,
        short_id: &str,
    ) -> Result<pb::GetHostedLogoResponse, CoreError> {
        let (form, _) = self.published(short_id).await?;
        let (id, content_type, content) = logo::get(&self.file_store, &self.pool, form.id)
            .await?
            .ok_or(CoreError::NotFound("logo"))?;
        Ok(pb::GetHostedLogoResponse {
            id: id.to_string(),
            content_type,
            content,
        })
    }
}

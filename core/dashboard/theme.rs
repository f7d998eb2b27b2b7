//! The account's default theme: the look of its forms that have no theme of their own
//! (the hosted page's read falls back to it: `forms::store::get_published_by_short_id`).
//! Checked as a form's theme is (`forms::theme`); a logo is always a form's own.

use super::owner::Owner;
use super::service::session_of;
use crate::error::CoreError;
use crate::forms::logo::{theme_from_pb, theme_to_pb};
use crate::forms::theme::Theme;
use crate::gate::Ctx;
use crate::pb;
use sqlx::PgExecutor;
use sqlx::types::Json;
use uuid::Uuid;

/// The account's default theme, if it has one.
pub(super) async fn default_theme(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
) -> Result<Option<Theme>, CoreError> {
    let theme = sqlx::query_scalar!(
        r#"SELECT theme AS "theme: Json<Theme>" FROM accounts WHERE id = $1"#,
        account_id
    )
    .fetch_optional(db)
    .await?
    .flatten();
    Ok(theme.map(|t| t.0))
}

impl Owner {
    pub(super) async fn set_default_theme(
        &self,
        ctx: &Ctx,
        msg: pb::SetOwnDefaultThemeRequest,
    ) -> Result<pb::SetOwnDefaultThemeResponse, CoreError> {
        session_of(ctx)?;
        let theme = match msg.theme.map(theme_from_pb) {
            Some(mut theme) => {
                theme.check()?;
                Some(theme)
            }
            None => None,
        };
        sqlx::query!(
            "UPDATE accounts SET theme = $2 WHERE id = $1",
            ctx.caller.account_id,
            theme.as_ref().map(Json) as _
        )
        .execute(&self.pool)
        .await?;
        Ok(pb::SetOwnDefaultThemeResponse {
            theme: theme.map(theme_to_pb),
        })
    }
}

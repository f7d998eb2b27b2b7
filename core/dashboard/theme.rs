//! The account's default theme: the look of its forms that have no theme of their own
//! (the hosted page's read falls back to it: `forms::store::get_published_by_short_id`).
//! Checked as a form's theme is (`forms::theme`); a logo is always a form's own.

use super::owner::Owner;
use super::service::session_of;
use super::store;
use crate::audit::{self, Outcome::Done, Target};
use crate::error::CoreError;
use crate::forms::logo::{theme_from_pb, theme_to_pb};
use crate::gate::Ctx;
use crate::pb;

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
        let mut tx = self.pool.begin().await?;
        store::set_default_theme(&mut *tx, ctx.caller.account_id, theme.as_ref()).await?;
        let target = Target::account(ctx.caller.account_id);
        let changed = ["default_theme"];
        audit::record(
            &mut tx,
            &ctx.actor,
            "SetOwnDefaultTheme",
            &target,
            &changed,
            Done,
        )
        .await?;
        tx.commit().await?;
        Ok(pb::SetOwnDefaultThemeResponse {
            theme: theme.map(theme_to_pb),
        })
    }
}

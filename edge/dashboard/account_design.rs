//! The account's default design (`/app/account`, its Design fold): the look of the
//! account's forms that have no design of their own. The same inputs and rules as a
//! form's (`builder::design`); a logo is always a form's own.

use super::builder::design::{DesignForm, Problem, fold, problem_of, theme_from};
use super::layout::{self, Section};
use super::owner::{Owner, Posted, see_other};
use crate::http::error::reason_of;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use maud::{Markup, html};

const INTRO: &str = "The look of your forms that have no design of their own.";

/// The fold on the account page.
pub(super) fn section(owner: &Owner, theme: Option<&pb::FormTheme>) -> Markup {
    fold(owner, theme, "/app/account/design", None, INTRO, html! {})
}

/// The design again with what was chosen and the problem beside its input (422).
fn refused(owner: &Owner, theme: Option<&pb::FormTheme>, problem: &Problem<'_>) -> Response {
    let body = html! {
        p class="crumbs" { a href="/app/account" { "Account" } }
        h1 { "Design of your forms" }
        (layout::problem(Some("Nothing was saved: the design below needs a change.")))
        (fold(owner, theme, "/app/account/design", Some(problem), INTRO, html! {}))
    };
    let mut response = owner.page("Design of your forms", Section::Account, body);
    *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    response
}

/// `POST /app/account/design`
pub(crate) async fn design(owner: Owner, Posted { csrf, form }: Posted<DesignForm>) -> Response {
    let theme = if form.reset.is_some() {
        None
    } else {
        match theme_from(&form) {
            Ok(theme) => Some(theme),
            Err(text) => {
                let problem = Problem {
                    property: "radius",
                    text,
                };
                return refused(&owner, None, &problem);
            }
        }
    };
    let request = pb::SetOwnDefaultThemeRequest {
        theme: theme.clone(),
    };
    let result = owner
        .state
        .owner()
        .set_own_default_theme(owner.change(request, &csrf))
        .await;
    match result {
        Ok(_) => see_other("/app/account?done=design#design"),
        Err(status) if matches!(reason_of(&status), Some(ErrorReason::ValidationError)) => {
            match problem_of(status.message()) {
                Some(problem) => refused(&owner, theme.as_ref(), &problem),
                None => owner.failure(&status),
            }
        }
        Err(status) => owner.failure(&status),
    }
}

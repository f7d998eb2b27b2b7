//! An invitation's link (`/app/invitation?token=…`): a page with one button, so that
//! the link is spent only by a post (a mail scanner that opens it spends nothing). The
//! token travels in the query and the posted form, never in the path, which the access
//! log writes. A
//! signed-in browser joins as the person it is signed in as; otherwise the invited
//! address joins, unless it can sign in already, in which case the page says to sign
//! in first and come back.

use super::layout::{self, Section};
use super::owner::{self, Posted, session_cookie};
use super::sign_in::signed_in;
use crate::http::error::reason_of;
use crate::http::state::AppState;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use maud::{Markup, html};
use tonic::metadata::MetadataValue;

/// The session of the browser, if it has one that still works.
async fn session_of(state: &AppState, parts: &Parts) -> Option<(String, pb::DashboardSession)> {
    let token = session_cookie(parts)?;
    let mut request = tonic::Request::new(pb::GetSessionRequest {});
    *request.metadata_mut() = owner::metadata(parts, Some(&token));
    let session = state.sessions().get_session(request).await.ok()?;
    session.into_inner().session.map(|s| (token, s))
}

/// What the link invites to, if it still works.
async fn invitation_of(state: &AppState, token: &str) -> Option<pb::GetInvitationResponse> {
    let request = tonic::Request::new(pb::GetInvitationRequest {
        token: token.to_owned(),
    });
    let found = state.members().get_invitation(request).await;
    found.ok().map(tonic::Response::into_inner)
}

/// What a link used, withdrawn or expired says.
const SPENT: &str = "This invitation was used already, was withdrawn, or has expired. Ask whoever invited you for a new one.";

fn page_of(
    status: StatusCode,
    session: Option<&pb::DashboardSession>,
    (token, invitation): (&str, Option<&pb::GetInvitationResponse>),
    problem: Option<Markup>,
) -> Response {
    let body = html! {
        h1 { "You are invited" }
        @if let Some(problem) = problem { (problem) }
        @else if let Some(invitation) = invitation {
            p { "You are invited to work on the forms of " strong { (invitation.account_name) } " as " strong { (invitation.role) } "." }
            p { "This is formsd, where " (invitation.account_name) " builds its forms and reads the answers people send. "
                "What " (super::roles::a(&invitation.role)) " may do: " (super::roles::does(&invitation.role)) "." }
            p class="muted" { "The invitation was made out to " (invitation.email) "; its link works once, until " (layout::when(invitation.expires_at.as_ref())) "." }
            @if let Some(session) = session {
                p { "You are signed in to " strong { (session.account_name) } ". Accepting adds the invitation's account to the accounts you can switch between." }
            }
            form method="post" action="/app/invitation" {
                @if let Some(session) = session { (layout::csrf(session)) }
                input type="hidden" name="token" value=(token);
                div class="actions" { button type="submit" { "Accept the invitation" } }
            }
        } @else {
            p class="error" role="alert" { (SPENT) }
        }
    };
    layout::reply(
        status,
        layout::page("Invitation", Section::None, session, body),
    )
}

#[derive(serde::Deserialize)]
pub(crate) struct TokenForm {
    #[serde(default)]
    token: String,
}

/// `GET /app/invitation?token=…`
pub(crate) async fn page(
    State(state): State<AppState>,
    parts: Parts,
    Query(TokenForm { token }): Query<TokenForm>,
) -> Response {
    let session = session_of(&state, &parts).await;
    let invitation = invitation_of(&state, &token).await;
    let status = match invitation {
        Some(_) => StatusCode::OK,
        None => StatusCode::NOT_FOUND,
    };
    let shown = (token.as_str(), invitation.as_ref());
    page_of(status, session.as_ref().map(|s| &s.1), shown, None)
}

/// `POST /app/invitation`: the session of the inviting account, and on to its forms.
pub(crate) async fn accept(
    State(state): State<AppState>,
    parts: Parts,
    Posted { csrf, form }: Posted<TokenForm>,
) -> Response {
    let token = form.token;
    let session = session_of(&state, &parts).await;
    let mut request = tonic::Request::new(pb::AcceptInvitationRequest {
        token: token.clone(),
    });
    *request.metadata_mut() = owner::metadata(&parts, session.as_ref().map(|s| s.0.as_str()));
    if let Ok(value) = MetadataValue::try_from(csrf.as_str()) {
        request.metadata_mut().insert("x-csrf-token", value);
    }
    let shown = session.as_ref().map(|s| &s.1);
    match state.members().accept_invitation(request).await {
        Ok(reply) => signed_in(&parts, reply.into_inner().session, Some("/app/forms")),
        Err(status) => {
            let (code, text) = match reason_of(&status) {
                Some(ErrorReason::NotFound) => (StatusCode::NOT_FOUND, SPENT.to_owned()),
                Some(ErrorReason::ValidationError) => (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    owner::plain_refusal(status.message()),
                ),
                _ => return owner::failure(shown, &status, ""),
            };
            let back = format!("/app/invitation?token={token}");
            let next =
                percent_encoding::utf8_percent_encode(&back, percent_encoding::NON_ALPHANUMERIC);
            let problem = html! {
                p class="error" role="alert" { (text) }
                @if code == StatusCode::UNPROCESSABLE_ENTITY {
                    p { a href={ "/app/sign-in?next=" (next) } { "Sign in, then accept" } }
                }
            };
            page_of(code, shown, (&token, None), Some(problem))
        }
    }
}

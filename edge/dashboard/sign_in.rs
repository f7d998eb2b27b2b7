//! Signing in and out: the sign-in page, a one-time link (printed by
//! `formsd accounts sign-in-link`, or mailed), the identity provider's session cookie,
//! and sign-out. Every rule (tokens, throttles, which account) is the core's.

use super::layout::{self, Section};
use super::owner::{self, Owner, Posted, clear_session, set_session};
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use forms::pb;
use maud::{Markup, html};
use serde::Deserialize;

/// Where to go after signing in: a dashboard path, never another site.
pub(crate) fn next_or_home(next: Option<&str>) -> &str {
    match next {
        Some(n) if n.starts_with("/app/") && !n.starts_with("/app//") && !n.contains('\\') => n,
        _ => "/app/forms",
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct Next {
    next: Option<String>,
}

fn sign_in_page(status: StatusCode, next: &str, message: Option<Markup>) -> Response {
    let body = html! {
        h1 { "Sign in" }
        @if let Some(message) = message { (message) }
        div class="card" {
            h2 { "Email me a sign-in link" }
            form method="post" action="/app/sign-in/mail" {
                input type="hidden" name="next" value=(next);
                label for="email" { "Email address" }
                input id="email" name="email" type="email" autocomplete="email" required;
                div class="actions" { button type="submit" { "Send link" } }
            }
        }
        div class="card" {
            h2 { "Single sign-on" }
            div class="actions" {
                form method="post" action="/app/sign-in/oidc" {
                    input type="hidden" name="next" value=(next);
                    button type="submit" { "Sign in with your identity provider" }
                }
                form method="post" action="/app/sign-in/cookie" {
                    input type="hidden" name="next" value=(next);
                    button class="secondary" type="submit" { "Use my current provider session" }
                }
            }
        }
        p class="muted" {
            "Operators can print a one-time link on the server: "
            code { "formsd accounts sign-in-link ACCOUNT" }
        }
    };
    layout::reply(status, layout::page("Sign in", Section::None, None, body))
}

/// `GET /app/sign-in`
pub(crate) async fn page(Query(next): Query<Next>) -> Response {
    sign_in_page(StatusCode::OK, next_or_home(next.next.as_deref()), None)
}

#[derive(Deserialize)]
pub(crate) struct LinkQuery {
    #[serde(default)]
    token: String,
    next: Option<String>,
}

/// `GET /app/sign-in/link?token=`: a page with one button that posts the token. A GET
/// never uses the link up, so that mail scanners that open links do not spend it.
pub(crate) async fn link_page(Query(q): Query<LinkQuery>) -> Response {
    let body = html! {
        h1 { "Sign in" }
        div class="card" {
            p { "This one-time link signs you in to the dashboard. It works once, for 15 minutes." }
            form method="post" action="/app/sign-in/link" {
                input type="hidden" name="token" value=(q.token);
                input type="hidden" name="next" value=(next_or_home(q.next.as_deref()));
                button type="submit" { "Continue" }
            }
        }
    };
    let mut response = layout::reply(
        StatusCode::OK,
        layout::page("Sign in", Section::None, None, body),
    );
    // The token is in this page's address: no other site may learn it as a referrer.
    response.headers_mut().insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

#[derive(Deserialize)]
pub(crate) struct LinkForm {
    #[serde(default)]
    token: String,
    next: Option<String>,
}

/// A signed-in browser: the session cookie set, on to `next`.
pub(crate) fn signed_in(session: Option<pb::DashboardSession>, next: Option<&str>) -> Response {
    let mut response = owner::see_other(next_or_home(next));
    if let Some(cookie) = session.as_ref().and_then(|s| set_session(&s.token)) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// The sign-in page again, saying why the attempt failed.
pub(crate) fn refused(status: &tonic::Status, next: Option<&str>) -> Response {
    let (code, text) = match crate::error::reason_of(status) {
        Some(pb::ErrorReason::RateLimited) => (
            StatusCode::TOO_MANY_REQUESTS,
            "Too many sign-in attempts. Wait a minute and try again.",
        ),
        Some(pb::ErrorReason::ServiceUnavailable) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "The service is temporarily unavailable. Try again in a moment.",
        ),
        _ => (
            StatusCode::UNAUTHORIZED,
            "That did not sign you in: the link was used already, has expired, or the session is not linked to an account.",
        ),
    };
    sign_in_page(code, next_or_home(next), Some(layout::problem(Some(text))))
}

/// `POST /app/sign-in/link`
pub(crate) async fn redeem(
    State(state): State<AppState>,
    parts: Parts,
    Posted { form, .. }: Posted<LinkForm>,
) -> Response {
    let mut request = tonic::Request::new(pb::RedeemSignInLinkRequest { token: form.token });
    *request.metadata_mut() = owner::metadata(&parts, None);
    match state.sessions().redeem_sign_in_link(request).await {
        Ok(reply) => signed_in(reply.into_inner().session, form.next.as_deref()),
        Err(status) => refused(&status, form.next.as_deref()),
    }
}

#[derive(Deserialize)]
pub(crate) struct NextForm {
    next: Option<String>,
}

/// `POST /app/sign-in/cookie`: the identity provider's session cookie signs in.
pub(crate) async fn with_cookie(
    State(state): State<AppState>,
    parts: Parts,
    Posted { form, .. }: Posted<NextForm>,
) -> Response {
    let mut request = tonic::Request::new(pb::SignInWithProviderCookieRequest {});
    let mut md = owner::metadata(&parts, None);
    for cookie in parts.headers.get_all(header::COOKIE) {
        if let Ok(value) = tonic::metadata::MetadataValue::try_from(cookie.as_bytes()) {
            md.append("cookie", value);
        }
    }
    *request.metadata_mut() = md;
    match state.sessions().sign_in_with_provider_cookie(request).await {
        Ok(reply) => signed_in(reply.into_inner().session, form.next.as_deref()),
        Err(status) => refused(&status, form.next.as_deref()),
    }
}

/// `POST /app/sign-out`: ends the session on every instance and forgets the cookie.
pub(crate) async fn sign_out(owner: Owner, Posted { csrf, .. }: Posted<NextForm>) -> Response {
    let ended = owner
        .state
        .sessions()
        .end_session(owner.change(pb::EndSessionRequest {}, &csrf))
        .await;
    if let Err(status) = ended {
        return owner.failure(&status);
    }
    let body = html! {
        h1 { "Signed out" }
        p class="notice" role="status" { "Your session has ended on every server." }
        p { a href="/app/sign-in" { "Sign in again" } }
    };
    let mut response = layout::reply(
        StatusCode::OK,
        layout::page("Signed out", Section::None, None, body),
    );
    response
        .headers_mut()
        .append(header::SET_COOKIE, clear_session());
    response.into_response()
}

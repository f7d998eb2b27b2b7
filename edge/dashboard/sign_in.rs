//! Signing in and out: the sign-in page, a one-time link (printed by
//! `formsd accounts sign-in-link`, or mailed), OpenID Connect, the identity provider's
//! session cookie, and sign-out. Every rule (tokens, throttles, which account, the
//! provider's checks) is the core's.
//!
//! OpenID Connect: `POST /app/sign-in/oidc` starts an attempt at the core and binds its
//! `state` to this browser with a short cookie (`formsd_oidc`, ten minutes, sent only to
//! `/app/sign-in/oidc`), which also carries the `next` page; the callback is refused
//! unless the cookie's state is the one the provider sent back, so that nobody can sign
//! a victim's browser in to the attacker's account by sending it a callback URL (login
//! CSRF). The callback URL is `<origin>/app/sign-in/oidc/callback`, `<origin>` being
//! `--public-url`, else the request's own (its Host, https when it came so): a forged
//! Host gets a redirect URI the provider does not have registered, and refuses.
//!
//! Mailed links are built by the core on its `--public-url` only: from a Host header
//! (or any base) that the sender chose, the mail would carry the token to the sender's
//! site. Without it, the page does not offer them.

use super::layout::{self, Section};
use super::owner::{self, Owner, Posted, clear_session, set_session};
use crate::http::server::OverHttps;
use crate::http::state::AppState;
use axum::extract::{Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use forms::pb;
use maud::{Markup, html};
use serde::Deserialize;

/// Where to go after signing in: a dashboard path, never another site, and one that
/// a `Location` header can carry (visible ASCII only: no line break, space or control
/// character), so that the redirect after a link is spent cannot fail.
pub(crate) fn next_or_home(next: Option<&str>) -> &str {
    match next {
        Some(n)
            if n.starts_with("/app/")
                && !n.starts_with("/app//")
                && !n.contains('\\')
                && n.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            n
        }
        _ => "/app/forms",
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct Next {
    next: Option<String>,
}

/// What the sign-in page offers besides links printed by the operator.
#[derive(Clone, Copy)]
pub(crate) struct Offers {
    /// Mailed links (`--public-url` is set).
    mail: bool,
    /// OpenID Connect (`--oidc-issuer` is set).
    oidc: bool,
    /// The identity provider's session cookie (a session key is set). Without one, the
    /// core refuses every such sign-in: a button for it would only fail.
    provider_cookie: bool,
}

impl Offers {
    pub(crate) fn of(state: &AppState) -> Self {
        Self {
            mail: state.public_url.is_some(),
            oidc: state.oidc,
            provider_cookie: state.provider_cookie,
        }
    }
}

fn sign_in_page(
    status: StatusCode,
    offers: Offers,
    next: &str,
    message: Option<Markup>,
) -> Response {
    let body = html! {
        h1 { "Sign in" }
        @if let Some(message) = message { (message) }
        @if offers.mail { div class="card" {
            h2 { "Email me a sign-in link" }
            form method="post" action="/app/sign-in/mail" {
                input type="hidden" name="next" value=(next);
                label for="email" { "Email address" }
                input id="email" name="email" type="email" autocomplete="email" required;
                div class="actions" { button type="submit" { "Send link" } }
            }
        } }
        @if offers.oidc || offers.provider_cookie { div class="card" {
            h2 { "Single sign-on" }
            div class="actions" {
                @if offers.oidc {
                    a class="button" href={"/app/sign-in/oidc?next=" (percent_encoding::utf8_percent_encode(next, percent_encoding::NON_ALPHANUMERIC))} {
                        "Sign in with your identity provider"
                    }
                }
                @if offers.provider_cookie {
                    form method="post" action="/app/sign-in/cookie" {
                        input type="hidden" name="next" value=(next);
                        button class="secondary" type="submit" { "Use my current provider session" }
                    }
                }
            }
        } }
        p class="muted" {
            "Operators can print a one-time link on the server: "
            code { "formsd accounts sign-in-link ACCOUNT" }
        }
    };
    layout::reply(status, layout::page("Sign in", Section::None, None, body))
}

/// `GET /app/sign-in`
pub(crate) async fn page(State(state): State<AppState>, Query(next): Query<Next>) -> Response {
    sign_in_page(
        StatusCode::OK,
        Offers::of(&state),
        next_or_home(next.next.as_deref()),
        None,
    )
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
pub(crate) fn signed_in(
    parts: &Parts,
    session: Option<pb::DashboardSession>,
    next: Option<&str>,
) -> Response {
    let mut response = owner::see_other(next_or_home(next));
    if let Some(cookie) = session.as_ref().and_then(|s| set_session(parts, &s.token)) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// The sign-in page again, saying why the attempt failed.
pub(crate) fn refused(state: &AppState, status: &tonic::Status, next: Option<&str>) -> Response {
    refused_as(
        state,
        status,
        next,
        "That did not sign you in: the link was used already, has expired, or the session is not linked to an account.",
    )
}

/// The sign-in page again: throttled, unavailable, or `otherwise`.
fn refused_as(
    state: &AppState,
    status: &tonic::Status,
    next: Option<&str>,
    otherwise: &'static str,
) -> Response {
    let (code, text) = match crate::http::error::reason_of(status) {
        Some(pb::ErrorReason::RateLimited) => (
            StatusCode::TOO_MANY_REQUESTS,
            "Too many sign-in attempts. Wait a minute and try again.",
        ),
        Some(pb::ErrorReason::ServiceUnavailable) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "The service is temporarily unavailable. Try again in a moment.",
        ),
        _ => (StatusCode::UNAUTHORIZED, otherwise),
    };
    sign_in_page(
        code,
        Offers::of(state),
        next_or_home(next),
        Some(layout::problem(Some(text))),
    )
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
        Ok(reply) => signed_in(&parts, reply.into_inner().session, form.next.as_deref()),
        Err(status) => refused(&state, &status, form.next.as_deref()),
    }
}

/// `POST /app/sign-in/oidc`: an attempt started at the core, bound to this browser,
/// and the browser sent to the provider.
///
/// A link, not a posted form: the browser goes on to the provider's site, and the
/// pages' `form-action 'self'` would stop a form's submission from following a redirect
/// there. Starting an attempt changes nothing of an account (and is throttled per IP).
pub(crate) async fn oidc_begin(
    State(state): State<AppState>,
    parts: Parts,
    Query(form): Query<NextForm>,
) -> Response {
    let next = next_or_home(form.next.as_deref()).to_owned();
    let redirect_uri = format!("{}/app/sign-in/oidc/callback", origin(&state, &parts));
    let mut request = tonic::Request::new(pb::BeginOidcSignInRequest { redirect_uri });
    *request.metadata_mut() = owner::metadata(&parts, None);
    let begun = match state.sessions().begin_oidc_sign_in(request).await {
        Ok(reply) => reply.into_inner(),
        Err(status) => {
            return refused_as(
                &state,
                &status,
                Some(&next),
                "Single sign-on is not available on this server.",
            );
        }
    };
    let mut response = owner::see_other(&begun.authorization_url);
    let next = percent_encoding::utf8_percent_encode(&next, percent_encoding::NON_ALPHANUMERIC);
    if let Ok(cookie) = HeaderValue::from_str(&format!(
        "{OIDC_COOKIE}={}.{next}; Path=/app/sign-in/oidc; HttpOnly; SameSite=Lax; Max-Age=600",
        begun.state
    )) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// The cookie binding an OpenID attempt to the browser that started it: `STATE.NEXT`.
const OIDC_COOKIE: &str = "formsd_oidc";

/// The attempt bound to this browser: its state and the page to go on to.
fn oidc_cookie(parts: &Parts) -> Option<(String, String)> {
    let value = crate::http::cookies::cookie(&parts.headers, OIDC_COOKIE)?;
    let (state, next) = value.split_once('.')?;
    let next = percent_encoding::percent_decode_str(next)
        .decode_utf8()
        .ok()?;
    Some((state.to_owned(), next.into_owned()))
}

#[derive(Deserialize)]
pub(crate) struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// `GET /app/sign-in/oidc/callback?code=&state=`: the provider's answer. Refused unless
/// this browser started the attempt; the attempt's cookie is cleared in every case.
pub(crate) async fn oidc_callback(
    State(state): State<AppState>,
    parts: Parts,
    Query(callback): Query<Callback>,
) -> Response {
    let bound = oidc_cookie(&parts);
    let mut response = oidc_outcome(&state, &parts, callback, bound.as_ref()).await;
    response.headers_mut().append(
        header::SET_COOKIE,
        HeaderValue::from_static(
            "formsd_oidc=; Path=/app/sign-in/oidc; HttpOnly; SameSite=Lax; Max-Age=0",
        ),
    );
    response
}

async fn oidc_outcome(
    state: &AppState,
    parts: &Parts,
    callback: Callback,
    bound: Option<&(String, String)>,
) -> Response {
    let next = bound.map(|(_, next)| next.as_str());
    let page = |code: StatusCode, text: &'static str| {
        sign_in_page(
            code,
            Offers::of(state),
            next_or_home(next),
            Some(layout::problem(Some(text))),
        )
    };
    if let Some(error) = callback.error {
        // The provider's own words are not shown: they are free text in the address.
        let text = match error.as_str() {
            "access_denied" => "The identity provider did not sign you in: access was denied.",
            "login_required" | "interaction_required" | "consent_required" => {
                "The identity provider needs you to sign in there first."
            }
            _ => "The identity provider did not sign you in.",
        };
        return page(StatusCode::UNAUTHORIZED, text);
    }
    let (Some(code), Some(returned)) = (callback.code, callback.state) else {
        return page(
            StatusCode::BAD_REQUEST,
            "The identity provider's answer is incomplete. Start again.",
        );
    };
    let same_browser = bound.is_some_and(|(bound, _)| !bound.is_empty() && *bound == returned);
    if !same_browser {
        return page(
            StatusCode::FORBIDDEN,
            "This sign-in did not start in this browser, or took longer than ten minutes. Start again.",
        );
    }
    let mut request = tonic::Request::new(pb::FinishOidcSignInRequest {
        state: returned,
        code,
    });
    *request.metadata_mut() = owner::metadata(parts, None);
    match state.sessions().finish_oidc_sign_in(request).await {
        Ok(reply) => signed_in(parts, reply.into_inner().session, next),
        Err(status) => refused_as(
            state,
            &status,
            next,
            "That did not sign you in: the sign-in expired or was used already, or this identity is not linked to an account.",
        ),
    }
}

/// Where browsers reach the dashboard: `--public-url`, else this request's origin.
pub(crate) fn origin(state: &AppState, parts: &Parts) -> String {
    if let Some(url) = &state.public_url {
        return url.to_string();
    }
    let https = parts.extensions.get::<OverHttps>().is_some_and(|h| h.0);
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| parts.uri.authority().map(|a| a.as_str()))
        .unwrap_or("localhost");
    format!("{}://{host}", if https { "https" } else { "http" })
}

#[derive(Deserialize)]
pub(crate) struct MailForm {
    #[serde(default)]
    email: String,
    next: Option<String>,
}

/// `POST /app/sign-in/mail`: the same page whether or not the address is known.
pub(crate) async fn mail(
    State(state): State<AppState>,
    parts: Parts,
    Posted { form, .. }: Posted<MailForm>,
) -> Response {
    if state.public_url.is_none() {
        return sign_in_page(
            StatusCode::NOT_FOUND,
            Offers::of(&state),
            next_or_home(form.next.as_deref()),
            Some(layout::problem(Some(
                "This server does not mail sign-in links.",
            ))),
        );
    }
    // The core mails links on its own --public-url, never on a base a caller sends.
    let mut request = tonic::Request::new(pb::MailSignInLinkRequest {
        email: form.email,
        ..Default::default()
    });
    *request.metadata_mut() = owner::metadata(&parts, None);
    if let Err(status) = state.sessions().mail_sign_in_link(request).await {
        return refused_as(
            &state,
            &status,
            form.next.as_deref(),
            "The link could not be sent. Try again.",
        );
    }
    let body = html! {
        h1 { "Check your mail" }
        p class="notice" role="status" {
            "If an account has this address, a link is on its way. It works once, for 15 minutes."
        }
        p { a href="/app/sign-in" { "Back to sign-in" } }
    };
    layout::reply(
        StatusCode::OK,
        layout::page("Check your mail", Section::None, None, body),
    )
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
    if !state.provider_cookie {
        // A post from an old page, or typed by hand: say what is so, not that a link
        // was used.
        return sign_in_page(
            StatusCode::NOT_FOUND,
            Offers::of(&state),
            next_or_home(form.next.as_deref()),
            Some(layout::problem(Some(
                "This server does not sign in with your identity provider's session.",
            ))),
        );
    }
    let mut request = tonic::Request::new(pb::SignInWithProviderCookieRequest {});
    let mut md = owner::metadata(&parts, None);
    for cookie in parts.headers.get_all(header::COOKIE) {
        if let Ok(value) = tonic::metadata::MetadataValue::try_from(cookie.as_bytes()) {
            md.append("cookie", value);
        }
    }
    *request.metadata_mut() = md;
    match state.sessions().sign_in_with_provider_cookie(request).await {
        Ok(reply) => signed_in(&parts, reply.into_inner().session, form.next.as_deref()),
        Err(status) => refused(&state, &status, form.next.as_deref()),
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
    clear_session(response.headers_mut());
    response.into_response()
}

/// The page after leaving an account: its session has ended (the core ended it with
/// the membership), so the cookie goes too.
pub(crate) fn left(account_name: &str) -> Response {
    let body = html! {
        h1 { "You left " (account_name) }
        p class="notice" role="status" { "You no longer have access to its forms and results." }
        p { a href="/app/sign-in" { "Sign in to another account" } }
    };
    let mut response = layout::reply(
        StatusCode::OK,
        layout::page("Left the account", Section::None, None, body),
    );
    clear_session(response.headers_mut());
    response.into_response()
}

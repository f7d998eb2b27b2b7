//! Who is signed in: the session cookie, checked by the core (GetSession) on every
//! page, and the calls a page makes in the owner's name. Reads carry the session; calls
//! that change something carry its CSRF token too, as the posted form sent it, and the
//! core refuses them without it (so a forged post changes nothing).

use super::layout::{self, Section};
use crate::http::call::RequestId;
use crate::http::error::reason_of;
use crate::http::server::{ClientIp, OverHttps};
use crate::http::state::AppState;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use forms::pb::{self, ErrorReason};
use maud::html;
use serde::de::DeserializeOwned;
use tonic::metadata::{MetadataMap, MetadataValue};

/// The session cookie over plain HTTP: HttpOnly, SameSite=Lax, Path=/app.
pub(crate) const SESSION_COOKIE: &str = "formsd_session";
/// The session cookie over HTTPS: the `__Host-` prefix makes the browser keep it only
/// when this host itself set it over HTTPS with `Path=/` and no `Domain`, so no sibling
/// host of the domain can set or shadow it (Secure is added to every cookie of a reply
/// over HTTPS, see `https`). Over HTTPS only this name is read.
pub(crate) const HOST_SESSION_COOKIE: &str = "__Host-formsd_session";

/// Whether the request came over HTTPS (directly, or as a trusted proxy says).
fn over_https(parts: &Parts) -> bool {
    parts.extensions.get::<OverHttps>().is_some_and(|h| h.0)
}

/// The session cookie's value in a request: the one cookie of the scheme's name, none
/// when there are two (a tossed cookie cannot win over the owner's).
pub(crate) fn session_cookie(parts: &Parts) -> Option<String> {
    let name = match over_https(parts) {
        true => HOST_SESSION_COOKIE,
        false => SESSION_COOKIE,
    };
    crate::http::cookies::only_cookie(&parts.headers, name)
        .filter(|v| v.len() <= 128)
        .map(str::to_owned)
}

/// `Set-Cookie` for a new session, named for the request's scheme.
pub(crate) fn set_session(parts: &Parts, token: &str) -> Option<HeaderValue> {
    let cookie = match over_https(parts) {
        true => format!("{HOST_SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax"),
        false => format!("{SESSION_COOKIE}={token}; Path=/app; HttpOnly; SameSite=Lax"),
    };
    HeaderValue::from_str(&cookie).ok()
}

/// Adds the `Set-Cookie`s that remove the session cookie, under either name.
pub(crate) fn clear_session(headers: &mut HeaderMap) {
    for cookie in [
        "formsd_session=; Path=/app; HttpOnly; SameSite=Lax; Max-Age=0",
        "__Host-formsd_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0",
    ] {
        headers.append(header::SET_COOKIE, HeaderValue::from_static(cookie));
    }
}

/// Metadata of a call to the core from a page: request id, client address, and the
/// session when there is one.
pub(crate) fn metadata(parts: &Parts, session: Option<&str>) -> MetadataMap {
    let mut md = MetadataMap::new();
    if let Some(RequestId(id)) = parts.extensions.get::<RequestId>()
        && let Ok(value) = MetadataValue::try_from(id.as_str())
    {
        md.insert("x-request-id", value);
    }
    if let Some(ClientIp(ip)) = parts.extensions.get::<ClientIp>()
        && let Ok(value) = MetadataValue::try_from(ip.to_string())
    {
        md.insert("x-client-ip", value);
    }
    crate::http::call::pass_user_agent(&parts.headers, &mut md);
    if let Some(token) = session
        && let Ok(value) = MetadataValue::try_from(token)
    {
        md.insert("x-dashboard-session", value);
    }
    md
}

/// The signed-in owner of a page.
pub(crate) struct Owner {
    pub(crate) session: pb::DashboardSession,
    pub(crate) state: AppState,
    metadata: MetadataMap,
    pub(crate) request_id: String,
}

impl Owner {
    /// Whether the signed-in person's role is `least` or higher: what a page offers.
    pub(crate) fn may(&self, least: &str) -> bool {
        super::roles::may(&self.session, least)
    }

    /// A read in the owner's name.
    pub(crate) fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        *request.metadata_mut() = self.metadata.clone();
        request
    }

    /// A change in the owner's name, with the CSRF token the posted form carried.
    pub(crate) fn change<T>(&self, message: T, csrf: &str) -> tonic::Request<T> {
        let mut request = self.request(message);
        if let Ok(value) = MetadataValue::try_from(csrf) {
            request.metadata_mut().insert("x-csrf-token", value);
        }
        request
    }

    /// A page of this owner.
    pub(crate) fn page(&self, title: &str, section: Section, body: maud::Markup) -> Response {
        layout::page(title, section, Some(&self.session), body).into_response()
    }

    /// The page for an error of the core.
    pub(crate) fn failure(&self, status: &tonic::Status) -> Response {
        failure(Some(&self.session), status, &self.request_id)
    }

    /// The page for something not there, or another account's (404).
    pub(crate) fn not_found(&self) -> Response {
        let (title, text) = NOT_FOUND;
        let body = html! {
            h1 { (title) }
            p class="error" role="alert" { (text) }
            p { a href="/app/forms" { "Back to your forms" } }
        };
        layout::reply(
            StatusCode::NOT_FOUND,
            layout::page(title, Section::None, Some(&self.session), body),
        )
    }

    /// The form `id` (from the address), read in the owner's name: another account's
    /// form, or an id that is no UUID, is the page saying there is nothing here.
    pub(crate) async fn form(&self, id: &str) -> Result<pb::Form, Response> {
        let Ok(id) = uuid::Uuid::parse_str(id) else {
            return Err(self.not_found());
        };
        let request = self.request(pb::GetFormRequest { id: id.to_string() });
        let read = self.state.forms().get_form(request).await;
        match read.map(|r| r.into_inner().form) {
            Ok(Some(form)) => Ok(form),
            Ok(None) => Err(self.not_found()),
            Err(status) => Err(self.failure(&status)),
        }
    }
}

/// The words of the page for what is not there (or is another account's).
const NOT_FOUND: (&str, &str) = (
    "Not found",
    "There is nothing here, or it belongs to another account.",
);

/// Where to send a browser that is not signed in, coming back to `path` after.
fn to_sign_in(path_and_query: &str) -> Response {
    let next =
        percent_encoding::utf8_percent_encode(path_and_query, percent_encoding::NON_ALPHANUMERIC);
    let mut response = Redirect::to(&format!("/app/sign-in?next={next}")).into_response();
    clear_session(response.headers_mut());
    response
}

impl FromRequestParts<AppState> for Owner {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        // The path as the browser asked for it (the router nested under /app strips it).
        let back = parts
            .extensions
            .get::<axum::extract::OriginalUri>()
            .and_then(|uri| uri.path_and_query())
            .map_or("/app/forms", |p| p.as_str())
            .to_owned();
        let Some(token) = session_cookie(parts) else {
            return Err(to_sign_in(&back));
        };
        let metadata = metadata(parts, Some(&token));
        let request_id = parts
            .extensions
            .get::<RequestId>()
            .map_or_else(String::new, |id| id.0.clone());
        let mut request = tonic::Request::new(pb::GetSessionRequest {});
        *request.metadata_mut() = metadata.clone();
        match state.sessions().get_session(request).await {
            Ok(reply) => match reply.into_inner().session {
                Some(session) => Ok(Self {
                    session,
                    state: state.clone(),
                    metadata,
                    request_id,
                }),
                None => Err(to_sign_in(&back)),
            },
            Err(status) => Err(failure(None, &status, &request_id)),
        }
    }
}

/// The page for an error of the core: sign in again when the session is gone, else a
/// page saying what happened.
pub(crate) fn failure(
    session: Option<&pb::DashboardSession>,
    status: &tonic::Status,
    request_id: &str,
) -> Response {
    let reason = reason_of(status);
    let (code, title, text) = match reason {
        Some(ErrorReason::Unauthenticated | ErrorReason::KeyInvalid) => {
            return to_sign_in("/app/forms");
        }
        Some(ErrorReason::NotFound) => (StatusCode::NOT_FOUND, NOT_FOUND.0, NOT_FOUND.1.to_owned()),
        Some(ErrorReason::CsrfFailed) => (
            StatusCode::FORBIDDEN,
            "This page has expired",
            "Nothing was changed. Go back, reload the page and try again.".to_owned(),
        ),
        Some(ErrorReason::InsufficientScope) => (
            StatusCode::FORBIDDEN,
            "Your role does not allow this",
            format!(
                "Nothing was changed: {}. Ask an owner or an admin of this account.",
                status.message().trim_end_matches('.')
            ),
        ),
        Some(ErrorReason::FormNotPublished) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            "The form is not published",
            "Nothing was changed: publish the form on its Builder page first, then try again."
                .to_owned(),
        ),
        Some(ErrorReason::FormClosed) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            "The form is closed",
            "Nothing was changed: the form takes no more responses.".to_owned(),
        ),
        Some(ErrorReason::ValidationError) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            "That did not work",
            plain_refusal(status.message()),
        ),
        Some(ErrorReason::RateLimited) => (
            StatusCode::TOO_MANY_REQUESTS,
            "Too many requests",
            "Please wait a moment and try again.".to_owned(),
        ),
        Some(ErrorReason::ServiceUnavailable) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "Temporarily unavailable",
            "The service cannot reach its database. Try again in a moment.".to_owned(),
        ),
        _ => {
            tracing::error!(
                request_id,
                reason = reason.map(ErrorReason::code),
                message = status.message(),
                "dashboard call failed"
            );
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "Nothing was changed. Please try again shortly.".to_owned(),
            )
        }
    };
    let support = code == StatusCode::INTERNAL_SERVER_ERROR && !request_id.is_empty();
    let body = html! {
        h1 { (title) }
        p class="error" role="alert" { (text) }
        // The request's id finds the service's note of it; folded, as no one reads it
        // but the person who runs the service.
        @if support {
            details { summary { "Details for the service's operator" } p { "Request id: " code { (request_id) } } }
        }
        p { a href="/app/forms" { "Back to your forms" } }
    };
    layout::reply(code, layout::page(title, Section::None, session, body))
}

/// The core's refusal in the page's words: its field paths named as the builder names
/// them; a message that still speaks the API (paths, brackets, ids, snake_case names)
/// gives way to a plain sentence.
pub(crate) fn plain_refusal(message: &str) -> String {
    let text = crate::dashboard::builder::humane(message);
    let speaks_api = text.contains(['[', '{', '_', '='])
        || text
            .split(|c: char| !c.is_ascii_hexdigit() && c != '-')
            .any(|w| w.len() >= 32);
    if text.trim().is_empty() || speaks_api {
        "This could not be done as it was sent. Go back, check what you entered and try again."
            .to_owned()
    } else {
        let text = text.trim().trim_end_matches('.');
        let mut chars = text.chars();
        let first = chars
            .next()
            .map(|c| c.to_uppercase().collect::<String>())
            .unwrap_or_default();
        format!("This could not be done: {first}{}.", chars.as_str())
    }
}

/// A posted form (`application/x-www-form-urlencoded`; repeated names make lists),
/// with the session's CSRF token it must carry. A body that does not parse gets a
/// page saying so.
pub(crate) struct Posted<T> {
    pub(crate) csrf: String,
    pub(crate) form: T,
}

#[derive(serde::Deserialize)]
struct Csrf {
    #[serde(rename = "_csrf", default)]
    csrf: String,
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Posted<T> {
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Response> {
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let form = serde_html_form::from_bytes::<T>(&bytes);
        let csrf = serde_html_form::from_bytes::<Csrf>(&bytes).map(|c| c.csrf);
        match (form, csrf) {
            (Ok(form), Ok(csrf)) => Ok(Self { csrf, form }),
            (Err(e), _) | (_, Err(e)) => {
                // The parser's words name the page's inner field names: not for people.
                tracing::debug!(error = %e, "dashboard form not read");
                let body = html! {
                    h1 { "That form could not be read" }
                    p class="error" role="alert" { "Something in what was sent is missing or not as the page makes it. Nothing was changed." }
                    p { "Go back, reload the page and enter it again." }
                };
                Err(layout::reply(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    layout::page("Form not read", Section::None, None, body),
                ))
            }
        }
    }
}

/// After a change: back to `to` (303, so a reload does not post again).
pub(crate) fn see_other(to: &str) -> Response {
    Redirect::to(to).into_response()
}

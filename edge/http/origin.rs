//! Where a browser says a request comes from: the page's origin (its `Origin` header,
//! else its `Referer`'s origin, for older browsers that send none on some posts), and
//! whether that origin is this service's own. The one reading of both, for the endpoint
//! mode's posts and the dashboard's guard against cross-site posts.

use crate::http::state::AppState;
use axum::http::{HeaderMap, header};

fn header_str(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The origin of an `http(s)` URL (`Referer`), as browsers serialize origins.
pub(crate) fn origin_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.origin().ascii_serialization())
}

/// The page's origin: `Origin`, else the `Referer`'s; `None` when it sent neither.
/// `Origin: null` (sandboxed frames, file pages, privacy redirects) stays `"null"`, an
/// origin that is nobody's own.
pub(crate) fn page_origin(headers: &HeaderMap) -> Option<String> {
    if let Some(origin) = header_str(headers, header::ORIGIN) {
        return Some(origin.to_owned());
    }
    header_str(headers, header::REFERER).and_then(origin_of)
}

/// Whether `origin` is this service's own: its host and port are those the request
/// was sent to (`Host`), or those of `--public-url`.
pub(crate) fn is_own(state: &AppState, headers: &HeaderMap, origin: &str) -> bool {
    let Ok(url) = url::Url::parse(origin) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let authority = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    };
    let sent_to = header_str(headers, header::HOST).map(str::to_ascii_lowercase);
    let public = state.public_url.as_deref().and_then(origin_of);
    sent_to.as_deref() == Some(authority.as_str()) || public.as_deref() == Some(origin)
}

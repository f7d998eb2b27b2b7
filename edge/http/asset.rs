//! A file compiled into the binary (a style sheet, a script, an icon), served with the
//! headers every such file carries: its type, `nosniff`, and an hour's cache (it
//! changes only with the binary). The dashboard's and the hosted pages' assets both
//! go out through here.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// The type of a script.
pub(crate) const SCRIPT: &str = "text/javascript; charset=utf-8";
/// The type of a style sheet.
pub(crate) const STYLE: &str = "text/css; charset=utf-8";
/// The type of an SVG image.
pub(crate) const SVG: &str = "image/svg+xml";

/// `body`, served as a file of type `kind`.
pub(crate) fn served(body: &'static str, kind: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

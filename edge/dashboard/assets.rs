//! The dashboard's style sheet, scripts and icon, compiled into the binary.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

const CSS: &str = include_str!("assets/app.css");
const JS: &str = include_str!("assets/app.js");
const BUILDER_JS: &str = include_str!("assets/builder.js");
/// The service's icon: a form's card with two lines and a tick, in the dashboard's blue.
const ICON: &str = include_str!("assets/icon.svg");

/// `GET /app/assets/{file}`
pub(crate) async fn serve(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "app.css" => (CSS, "text/css; charset=utf-8"),
        "app.js" => (JS, "text/javascript; charset=utf-8"),
        "builder.js" => (BUILDER_JS, "text/javascript; charset=utf-8"),
        "icon.svg" => (ICON, "image/svg+xml"),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let mut response = body.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    // Assets change only with the binary; an hour is a fair cache.
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

/// `GET /favicon.ico`: browsers ask for it on every site; the icon, not an error.
pub(crate) async fn favicon() -> Response {
    serve(Path("icon.svg".to_owned())).await
}

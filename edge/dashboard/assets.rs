//! The dashboard's style sheet, scripts and icon, compiled into the binary.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

const CSS: &str = include_str!("assets/app.css");
const JS: &str = include_str!("assets/app.js");
const BUILDER_JS: &str = include_str!("assets/builder.js");
/// The service's icon: a form's card with two lines and a tick, in the dashboard's blue.
const ICON: &str = include_str!("assets/icon.svg");

/// `GET /app/assets/{file}`
pub(crate) async fn serve(Path(file): Path<String>) -> Response {
    use crate::http::asset::{SCRIPT, STYLE, SVG, served};
    match file.as_str() {
        "app.css" => served(CSS, STYLE),
        "app.js" => served(JS, SCRIPT),
        "builder.js" => served(BUILDER_JS, SCRIPT),
        "icon.svg" => served(ICON, SVG),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `GET /favicon.ico`: browsers ask for it on every site; the icon, not an error.
pub(crate) async fn favicon() -> Response {
    serve(Path("icon.svg".to_owned())).await
}

//! A form's theme on its page: `GET /f/{short_id}/theme.css`, the style sheet of CSS
//! custom properties that `assets/page.css` reads (served from our origin, so the
//! page's `style-src 'self'` allows it), and `GET /f/{short_id}/logo`, the theme's logo.
//! Both are linked with a version (`?v=`): a link with the current version is cached for
//! good, anything else briefly, and both answer `If-None-Match`.
//!
//! The colours were checked by the core when the theme was saved (WCAG AA against the
//! page's text colours, which are the ones below for the dark appearance and page.css's
//! for the light one: `core/forms/theme.rs` holds the same values).

use crate::http::params::PathParams;
use crate::http::state::AppState;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use forms::pb;
use serde::Deserialize;
use std::fmt::Write;

/// The system typefaces a theme may name: no web font is ever loaded.
fn font_stack(font: &str) -> Option<&'static str> {
    Some(match font {
        "system" => "system-ui,sans-serif",
        "humanist" => "Seravek,'Gill Sans Nova',Ubuntu,Calibri,'DejaVu Sans',sans-serif",
        "serif" => "Charter,'Bitstream Charter','Sitka Text',Cambria,Georgia,serif",
        "rounded" => "ui-rounded,'SF Pro Rounded',Nunito,'Arial Rounded MT',system-ui,sans-serif",
        "mono" => "ui-monospace,'SF Mono',Menlo,Consolas,'DejaVu Sans Mono',monospace",
        _ => return None,
    })
}

/// The dark appearance's own colours (the text ones mirror the core's check).
const DARK: &str = "color-scheme:dark;--ink:#e6e9ef;--muted:#b4bcc8;--line:#6b7585;\
--bad:#ff9a8f;--banner:#3b1714;--banner-ink:#ffd9d4;--ring:#8cb4ff;--star-off:#5b6472;\
--star:#f2b705;--done:#6fd08c;--busy:#4a5570;";
/// Links in the dark appearance (the browser's own blue is unreadable on dark).
const DARK_LINKS: &str = "a{color:#9cc4ff}";
/// The dark appearance's card when the theme names no background for it.
const DARK_SURFACE: &str = "#1c2029";

/// A colour the core stored: `#rrggbb`, nothing else reaches the style sheet.
fn colour(value: Option<&String>) -> Option<&str> {
    value.map(String::as_str).filter(|c| {
        c.len() == 7 && c.starts_with('#') && c[1..].bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// The variables of one appearance: `surface` is the card's colour (the theme's
/// background, or ours).
fn appearance(out: &mut String, dark: bool, surface: Option<&str>, accent: Option<&str>) {
    if dark {
        out.push_str(DARK);
    } else {
        out.push_str("color-scheme:light;");
    }
    let surface = surface.or(dark.then_some(DARK_SURFACE));
    if let Some(surface) = surface {
        let shade = if dark { 80 } else { 94 };
        let _ = write!(
            out,
            "--surface:{surface};--page:color-mix(in srgb,{surface} {shade}%,#000);"
        );
        // Inputs a shade apart from the card, towards the side the text contrasts with.
        let field = if dark {
            format!("color-mix(in srgb,{surface} 82%,#000)")
        } else {
            format!("color-mix(in srgb,{surface} 60%,#fff)")
        };
        let _ = write!(out, "--field:{field};");
    }
    if accent.is_some() || surface.is_some() {
        // A checked option's card: the accent faintly over the card.
        let weight = if dark { 18 } else { 10 };
        let _ = write!(
            out,
            "--tint:color-mix(in srgb,var(--accent) {weight}%,var(--surface));"
        );
    }
    // Back's text and border: the accent passes on white only; on any other card, the
    // page's text colour does.
    if dark || surface.is_some() {
        out.push_str("--accent-ink:var(--ink);");
    } else if let Some(accent) = accent {
        let _ = write!(out, "--accent-ink:{accent};");
    }
}

/// The style sheet of a theme: variables only (and the dark appearance under
/// `prefers-color-scheme` when the theme lets the device choose).
pub(super) fn stylesheet(theme: &pb::FormTheme) -> String {
    let accent = colour(theme.accent.as_ref());
    let background = colour(theme.background.as_ref());
    let mut root = String::new();
    if let Some(accent) = accent {
        let _ = write!(root, "--accent:{accent};");
    }
    if let Some(stack) = theme.font.as_deref().and_then(font_stack) {
        let _ = write!(root, "--font:{stack};");
    }
    if let Some(radius) = theme.radius.filter(|r| (0..=24).contains(r)) {
        let _ = write!(root, "--radius:{radius}px;");
    }
    let mut out =
        String::from("/* The form's theme: variables read by the page's style sheet. */\n");
    match theme.appearance.as_deref() {
        Some("dark") => {
            appearance(&mut root, true, background, accent);
            let _ = writeln!(out, ":root{{{root}}}{DARK_LINKS}");
        }
        Some("auto") => {
            appearance(&mut root, false, background, accent);
            let mut dark = String::new();
            appearance(&mut dark, true, None, accent);
            let _ = writeln!(out, ":root{{{root}}}");
            let _ = writeln!(
                out,
                "@media (prefers-color-scheme:dark){{:root{{{dark}}}{DARK_LINKS}}}"
            );
        }
        _ => {
            appearance(&mut root, false, background, accent);
            let _ = writeln!(out, ":root{{{root}}}");
        }
    }
    out
}

/// A short digest of `text`: the version in a link, and the ETag.
fn version_of(text: &str) -> String {
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(text.as_bytes())[..8])
}

/// What the hosted page links to for a form's theme: the style sheet's address and,
/// when the theme has a logo, the logo's. None for a form without a theme.
pub(super) struct Links {
    pub(super) stylesheet: String,
    pub(super) logo: Option<String>,
}

pub(super) fn links(short_id: &str, theme: Option<&pb::FormTheme>) -> Option<Links> {
    let theme = theme?;
    let version = version_of(&stylesheet(theme));
    Some(Links {
        stylesheet: format!("/f/{short_id}/theme.css?v={version}"),
        logo: theme
            .logo
            .as_ref()
            .map(|l| format!("/f/{short_id}/logo?v={}", l.id)),
    })
}

/// `?v=` of a theme's links.
#[derive(Deserialize)]
pub(crate) struct Version {
    v: Option<String>,
}

/// The caching headers of a versioned resource: for good when asked by its current
/// version, a minute otherwise; 304 when the client has it.
fn cached(
    request: &HeaderMap,
    etag: &str,
    current: bool,
    content_type: &str,
    body: Vec<u8>,
) -> Response {
    let etag = format!("\"{etag}\"");
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        body.into_response()
    };
    let headers = response.headers_mut();
    let cache = if current {
        "public, max-age=31536000, immutable"
    } else {
        "public, max-age=60"
    };
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    if let Ok(content_type) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, content_type);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// `GET /f/{short_id}/theme.css`: the form's theme (empty for a form without one).
pub(crate) async fn theme_css(
    State(state): State<AppState>,
    PathParams(short_id): PathParams<String>,
    Query(asked): Query<Version>,
    headers: HeaderMap,
) -> Response {
    let request = tonic::Request::new(pb::GetHostedThemeRequest { short_id });
    let theme = match state.hosted().get_hosted_theme(request).await {
        Ok(reply) => reply.into_inner().theme.unwrap_or_default(),
        Err(status) => return not_served(&status),
    };
    let css = stylesheet(&theme);
    let version = version_of(&css);
    let current = asked.v.as_deref() == Some(version.as_str());
    cached(
        &headers,
        &version,
        current,
        "text/css; charset=utf-8",
        css.into_bytes(),
    )
}

/// `GET /f/{short_id}/logo`: the theme's logo, as uploaded. An SVG logo is served under
/// a policy that runs nothing and loads nothing, should anyone open it on its own; the
/// page shows it as an image, where SVG never runs script anyway.
pub(crate) async fn logo(
    State(state): State<AppState>,
    PathParams(short_id): PathParams<String>,
    Query(asked): Query<Version>,
    headers: HeaderMap,
) -> Response {
    let request = tonic::Request::new(pb::GetHostedLogoRequest { short_id });
    let logo = match state.hosted().get_hosted_logo(request).await {
        Ok(reply) => reply.into_inner(),
        Err(status) => return not_served(&status),
    };
    let current = asked.v.as_deref() == Some(logo.id.as_str());
    let mut response = cached(
        &headers,
        &logo.id,
        current,
        &logo.content_type,
        logo.content,
    );
    let policy = if logo.content_type == "image/svg+xml" {
        "default-src 'none'; style-src 'unsafe-inline'"
    } else {
        "default-src 'none'"
    };
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(policy),
    );
    response
}

/// A theme or logo the core did not give: not found (a draft, another form, no logo)
/// or unavailable, as plain text (it is no page).
fn not_served(status: &tonic::Status) -> Response {
    match status.code() {
        tonic::Code::NotFound => (StatusCode::NOT_FOUND, "Not found").into_response(),
        _ => {
            tracing::warn!(
                message = status.message(),
                "a form's theme could not be read"
            );
            (StatusCode::SERVICE_UNAVAILABLE, "Try again shortly").into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_appearance_has_both() {
        let theme = pb::FormTheme {
            accent: Some("#8a3ffc".into()),
            background: Some("#fff8e7".into()),
            font: Some("serif".into()),
            radius: Some(16),
            appearance: Some("auto".into()),
            logo: None,
        };
        let css = stylesheet(&theme);
        assert!(css.contains("--accent:#8a3ffc;"), "{css}");
        assert!(css.contains("--surface:#fff8e7;"), "{css}");
        assert!(css.contains("--radius:16px;"), "{css}");
        assert!(css.contains("Charter"), "{css}");
        assert!(css.contains("@media (prefers-color-scheme:dark){:root{color-scheme:dark;"));
        // Nothing but a checked colour reaches the sheet.
        let hostile = pb::FormTheme {
            accent: Some("red;}body{display:none".into()),
            ..Default::default()
        };
        assert!(!stylesheet(&hostile).contains("display:none"));
    }
}

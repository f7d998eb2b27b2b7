//! The frame of hosted pages and the headers they carry: self-contained pages (no
//! external assets), one inline style sheet (`assets/page.css`) allowed by its hash,
//! and no JavaScript except scripts served from the binary: on a page with conditions,
//! the one that applies them (`conditions::SCRIPT_PATH`), on a page with choices, the
//! key letters (`KEYS_PATH`), both only enhancing a page that works without them; and
//! on the page of a form that turns `proof_of_work` on, the one that solves its
//! challenge (`SCRIPT_PATH`; without it the page says the form needs JavaScript); and
//! on the endpoint's refusal page, the one that makes its link back keep the answers
//! (`BACK_PATH`).
//! The message pages (errors, thanks) are drawn here; a form's page in `form`.

use super::words::Words;
use crate::http::state::AppState;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

pub(crate) use super::theme::{logo, theme_css};

/// Hidden field with the page's start token.
pub(super) const TOKEN_FIELD: &str = "_token";
/// Honeypot: invisible to people, tempting to robots.
pub(super) const HONEYPOT_FIELD: &str = "website";
/// Hidden field with the page of a form with pages (1-based).
pub(super) const PAGE_FIELD: &str = "_page";
/// Hidden field with the resume token of the visitor's partial response.
pub(super) const RESUME_FIELD: &str = "_resume";
/// Name of the page's buttons (`next`, `back`) on a form with pages.
pub(super) const NAV_FIELD: &str = "nav";
/// Hidden field with the language a page of a form in several languages is shown in.
pub(super) const LANG_FIELD: &str = "_lang";
/// Hidden field the page's script fills with the solved proof-of-work challenge.
pub(super) const POW_FIELD: &str = "pow_solution";
/// Where the proof-of-work script is served (two segments: never a form's address; its
/// route: `router::router`).
pub(super) const SCRIPT_PATH: &str = "/f/assets/pow.js";
/// The proof-of-work script (see its comments), compiled into the binary.
const SCRIPT: &str = include_str!("assets/pow.js");
/// Where the key letters' script is served (its route: `router::router`).
pub(super) const KEYS_PATH: &str = "/f/assets/keys.js";
/// The key letters' script: A, B, C… choose the options of the focused question.
const KEYS: &str = include_str!("assets/keys.js");
/// Where the steps' script is served (its route: `router::router`).
pub(super) const STEPS_PATH: &str = "/f/assets/steps.js";
/// The steps' script: one question at a time feels like one (focus, Enter, live region).
const STEPS: &str = include_str!("assets/steps.js");
/// Where the refusal page's script is served (its route: `router::router`).
pub(super) const BACK_PATH: &str = "/f/assets/back.js";
/// The refusal page's script: its link back goes back in the history, answers kept.
const BACK: &str = include_str!("assets/back.js");
/// The page's style sheet, inlined (one request less on a phone).
const STYLE: &str = include_str!("assets/page.css");

/// A page in the language of `words` (its `lang`, and `dir="rtl"` for Arabic): its
/// title, the style sheet, and `body` in the page's column.
pub(super) fn page(words: Words, title: &str, body: Markup) -> String {
    themed_page(words, title, None, body)
}

/// A page in a form's theme: its style sheet (`theme::stylesheet`) after ours, whose
/// variables it sets.
pub(super) fn themed_page(words: Words, title: &str, theme: Option<&str>, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang=(words.tag()) dir=[(words.dir() == "rtl").then_some("rtl")] {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width,initial-scale=1";
                title { (title) }
                style { (maud::PreEscaped(STYLE)) }
                @if let Some(href) = theme { link rel="stylesheet" href=(href); }
            }
            body { main { (body) } }
        }
    }
    .into_string()
}

pub(super) fn message_page(words: Words, status: StatusCode, title: &str, text: &str) -> Response {
    let body = html! { div.card { h1 { (title) } p { (text) } } };
    (status, Html(page(words, title, body))).into_response()
}

/// The page after a response is recorded: a check mark, one heading, and the owner's
/// message under it, else a line of our own (never "Thank you" twice); `back`, the
/// owner's page a post of their own form came from (endpoint mode), is offered as the
/// way back to their site.
pub(super) fn thanks_page(words: Words, message: Option<&str>, back: Option<&str>) -> Response {
    scored_thanks_page(words, message, back, None)
}

/// The thank-you page, with a quiz's score (points and the most one could score) when
/// the form shows it.
pub(super) fn scored_thanks_page(
    words: Words,
    message: Option<&str>,
    back: Option<&str>,
    score: Option<(i64, i64)>,
) -> Response {
    let text = message.filter(|m| !m.trim().is_empty());
    let title = words.get(if text.is_some() {
        "sent-title"
    } else {
        "thanks-title"
    });
    let body = html! {
        div.card.done {
            p.mark aria-hidden="true" { "✓" }
            h1 { (title) }
            @match text {
                Some(text) => p { (text) },
                None => p { (words.get("thanks-text")) },
            }
            @if let Some((score, max)) = score {
                p.score {
                    (words.with("quiz-score", &[("score", &score.to_string()), ("max", &max.to_string())]))
                }
            }
            @if let Some(back) = back { p { a href=(back) { "Back to the site" } } }
        }
    };
    (StatusCode::OK, Html(page(words, &title, body))).into_response()
}

/// A refused post of an owner's own form (endpoint mode): what went wrong, the
/// problems one per line, and the way back to the page it came from, where the
/// visitor's browser still holds the answers: `back` (its `Referer`, given only for a
/// site the form allows) as a link that the page's script turns into the history's
/// Back, which keeps what was typed; in words when there is no link or no script.
pub(super) fn refusal_page(
    status: StatusCode,
    title: &str,
    text: &str,
    problems: &[String],
    back: Option<&str>,
) -> Response {
    let body = html! {
        div.card {
            h1 { (title) }
            p { (text) }
            @if !problems.is_empty() {
                ul { @for problem in problems { li.error { (problem) } } }
            }
            @if let Some(back) = back {
                p { a href=(back) data-history-back { "Back to the form" } }
                p { "Your browser's Back button also returns to it, with your answers as you left them." }
            } @else {
                p { "Use your browser's Back button to return to the page you came from." }
            }
        }
        script src=(BACK_PATH) {}
    };
    (status, Html(page(Words::english(), title, body))).into_response()
}

/// A script compiled into the binary.
pub(super) fn served(script: &'static str) -> Response {
    crate::http::asset::served(script, crate::http::asset::SCRIPT)
}

/// `GET /f/assets/back.js`: the refusal page's script.
pub(crate) async fn back_script() -> Response {
    served(BACK)
}

/// `GET /f/assets/keys.js`: the key letters' script.
pub(crate) async fn keys_script() -> Response {
    served(KEYS)
}

/// `GET /f/assets/steps.js`: the steps' script.
pub(crate) async fn steps_script() -> Response {
    served(STEPS)
}

/// `GET /f/assets/pow.js`: the proof-of-work script.
pub(crate) async fn script() -> Response {
    let mut response = served(SCRIPT);
    let headers = response.headers_mut();
    // An owner's own page (endpoint mode) loads it as a module from another origin,
    // which browsers allow only with CORS; it is the same public file for everyone.
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// Where else than the page itself a form post may lead (the redirect URL's origin).
#[derive(Clone)]
pub(super) struct FormActionOrigin(pub(super) Option<String>);

/// The SHA-256 of the page's one inline style sheet, for the Content-Security-Policy.
static STYLE_HASH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    use base64::Engine;
    use sha2::Digest;
    let digest = sha2::Sha256::digest(STYLE.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
});

/// The headers of every hosted page: a Content-Security-Policy that allows the page's
/// own style sheet and those of its origin (a form's theme), images of its origin (a
/// theme's logo), scripts of its own origin (the conditions' and the proof of work's) and posts to
/// itself (or its redirect) and nothing else, who may frame it (`--frame-ancestors`),
/// no MIME sniffing, no referrer to other sites.
pub(crate) async fn page_headers(
    State(state): State<AppState>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let mut response = next.run(req).await;
    let form_action = match response.extensions().get::<FormActionOrigin>() {
        Some(FormActionOrigin(Some(origin))) => format!("'self' {origin}"),
        _ => "'self'".to_owned(),
    };
    let policy = format!(
        "default-src 'none'; script-src 'self'; style-src 'self' {}; img-src 'self'; form-action {form_action}; base-uri 'none'; frame-ancestors {}",
        *STYLE_HASH, state.frame_ancestors
    );
    let headers = response.headers_mut();
    if let Ok(policy) = HeaderValue::from_str(&policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // Unless the response chose its own (the endpoint's redirect to its thanks).
    if !headers.contains_key(header::REFERRER_POLICY) {
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        );
    }
    response
}

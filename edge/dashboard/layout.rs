//! The page shell every dashboard page shares (navigation, skip link, sign-out), the one
//! navigation pattern under it (a breadcrumb trail from the section to the page, then a
//! form's tabs on each page of a form), and the small pieces pages repeat: status
//! badges, times, notices, the CSRF field.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use forms::pb;
use maud::{DOCTYPE, Markup, html};

/// Which top-level section a page belongs to (marked in the navigation).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Forms,
    Keys,
    Account,
    Members,
    Audit,
    None,
}

/// Name of the hidden field carrying the session's CSRF token in every posted form.
pub(crate) const CSRF_FIELD: &str = "_csrf";

/// A whole page. `session` is absent on the sign-in pages.
pub(crate) fn page(
    title: &str,
    section: Section,
    session: Option<&pb::DashboardSession>,
    body: Markup,
) -> Markup {
    let link = |href: &str, label: &str, of: Section| {
        html! {
            @if section == of { a href=(href) aria-current="page" { (label) } }
            @else { a href=(href) { (label) } }
        }
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width,initial-scale=1";
                title { (title) " · formsd" }
                link rel="stylesheet" href="/app/assets/app.css";
                link rel="icon" href="/app/assets/icon.svg" type="image/svg+xml";
                script src="/app/assets/app.js" defer {}
            }
            body {
                a class="skip" href="#main" { "Skip to content" }
                header class="top" {
                    nav class="bar" aria-label="Main" {
                        span class="brand" { "formsd" }
                        @if let Some(session) = session {
                            // One group, so that on a phone the sections take a row
                            // of their own under the brand and Sign out (app.css).
                            span class="sections" {
                                (link("/app/forms", "Forms", Section::Forms))
                                @if super::roles::may(session, "admin") {
                                    (link("/app/keys", "API keys", Section::Keys))
                                }
                                (link("/app/account", "Account", Section::Account))
                                (link("/app/members", "Members", Section::Members))
                                @if super::roles::may(session, "admin") {
                                    (link("/app/audit", "Audit", Section::Audit))
                                }
                            }
                            form class="sign-out" method="post" action="/app/sign-out" {
                                (csrf(session))
                                button type="submit" { "Sign out " span class="visually-hidden" { (session.account_name) } }
                            }
                        }
                    }
                }
                main id="main" tabindex="-1" { (body) }
            }
        }
    }
}

/// The pages of one form, as its tabs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FormTab {
    Builder,
    Responses,
    Summary,
    Webhooks,
}

/// A table under its column headings, in a region of its own that scrolls sideways on a
/// narrow screen (named `label` for screen readers, reachable by keyboard).
pub(crate) fn table(label: &str, columns: &[&str], rows: Markup) -> Markup {
    table_in("", label, columns, rows)
}

/// `table`, its region also in `class` (the page's own layout of it).
pub(crate) fn table_in(class: &str, label: &str, columns: &[&str], rows: Markup) -> Markup {
    let class = match class {
        "" => "table-wrap".to_owned(),
        more => format!("table-wrap {more}"),
    };
    html! {
        div class=(class) tabindex="0" role="region" aria-label=(label) {
            table {
                thead { tr { @for column in columns { th scope="col" { (column) } } } }
                tbody { (rows) }
            }
        }
    }
}

/// The trail from a section to the page: `links` (address, words), then where the
/// page is (`here`, not a link). The same on every page under the main bar, so that a
/// person always finds the way up in one place.
pub(crate) fn crumbs(links: &[(&str, &str)], here: &str) -> Markup {
    html! {
        nav class="crumbs" aria-label="Breadcrumb" {
            ol {
                @for (href, label) in links { li { a href=(href) { (label) } } }
                li aria-current="page" { (here) }
            }
        }
    }
}

/// The tabs of a form's pages, `current` marked. Every page of a form shows them under
/// its title, even a page deeper than a tab (a response, a webhook), marking the tab it
/// belongs to.
pub(crate) fn form_tabs(form_id: &str, current: FormTab) -> Markup {
    let base = format!("/app/forms/{}", crate::dashboard::results::segment(form_id));
    let tab = |href: String, label: &str, of: FormTab| {
        html! { a href=(href) aria-current=[(current == of).then_some("page")] { (label) } }
    };
    html! {
        nav class="subnav" aria-label="Form" {
            (tab(base.clone(), "Builder", FormTab::Builder))
            (tab(format!("{base}/responses"), "Responses", FormTab::Responses))
            (tab(format!("{base}/summary"), "Summary", FormTab::Summary))
            (tab(format!("{base}/webhooks"), "Webhooks", FormTab::Webhooks))
        }
    }
}

/// The hidden CSRF field of a form that changes something.
pub(crate) fn csrf(session: &pb::DashboardSession) -> Markup {
    html! { input type="hidden" name=(CSRF_FIELD) value=(session.csrf_token); }
}

/// A page as a reply, with its status.
pub(crate) fn reply(status: StatusCode, markup: Markup) -> Response {
    (status, markup).into_response()
}

/// A moment for people, as text: `2026-11-24 09:30 UTC` (with `seconds`,
/// `…09:30:12 UTC`). For attributes (an `aria-label`), where no script reaches; the
/// text of a page uses [`moment`].
pub(crate) fn moment_text(ts: Option<&prost_types::Timestamp>, seconds: bool) -> String {
    let format = if seconds {
        "%Y-%m-%d %H:%M:%S UTC"
    } else {
        "%Y-%m-%d %H:%M UTC"
    };
    ts.and_then(forms::pb::convert::datetime)
        .map_or_else(|| "—".to_owned(), |at| at.format(format).to_string())
}

/// A moment for people, in the owner's own time zone: a `<time>` holding the moment in
/// UTC, saying so (what a browser without script shows), which app.js rewrites on the
/// computer's clock with the zone's name (`2026-11-24 10:30 (Europe/Berlin)`). `bare`
/// leaves the zone out, for a table whose column heading names it ([`zone_name`]).
pub(crate) fn moment(ts: Option<&prost_types::Timestamp>, seconds: bool, bare: bool) -> Markup {
    let Some(at) = ts.and_then(forms::pb::convert::datetime) else {
        return html! { "—" };
    };
    let format = match (seconds, bare) {
        (true, false) => "%Y-%m-%d %H:%M:%S UTC",
        (true, true) => "%Y-%m-%d %H:%M:%S",
        (false, false) => "%Y-%m-%d %H:%M UTC",
        (false, true) => "%Y-%m-%d %H:%M",
    };
    html! {
        time datetime=(forms::pb::convert::rfc3339(at)) data-local=(if bare { "bare" } else { "" })
            data-seconds[seconds] { (at.format(format)) }
    }
}

/// A timestamp for people, to the minute, in the owner's zone (see [`moment`]).
pub(crate) fn when(ts: Option<&prost_types::Timestamp>) -> Markup {
    moment(ts, false, false)
}

/// The name of the zone times are shown in: `UTC`, which app.js replaces by the
/// computer's zone (for column headings over [`moment`]s that leave it out).
pub(crate) fn zone_name() -> Markup {
    html! { span data-zone-name { "UTC" } }
}

/// A form's status, as a word and a badge.
pub(crate) fn status_badge(status: i32) -> Markup {
    let word = match pb::FormStatus::try_from(status) {
        Ok(pb::FormStatus::Draft) => "draft",
        Ok(pb::FormStatus::Published) => "published",
        Ok(pb::FormStatus::Archived) => "archived",
        _ => "unknown",
    };
    html! { span class={"badge " (word)} { (word) } }
}

/// A notice shown after a change (from a fixed list: `?done=` never echoes free text).
pub(crate) fn notice(text: Option<&str>) -> Markup {
    html! {
        @if let Some(text) = text { p class="notice" role="status" { (text) } }
    }
}

/// The minutes east of UTC a page's script sent (`data-day-zone`, `data-zone-offset`):
/// 0 when none was sent (no script: the page then says its days are UTC's), `None` when
/// what came is no zone's (none is more than 14 hours from UTC).
pub(crate) fn zone_offset(sent: Option<&str>) -> Option<i32> {
    match sent.map(str::trim) {
        None | Some("") => Some(0),
        Some(text) => text
            .parse::<i32>()
            .ok()
            .filter(|m| (-14 * 60..=14 * 60).contains(m)),
    }
}

/// An error box with what to fix.
pub(crate) fn problem(text: Option<&str>) -> Markup {
    html! {
        @if let Some(text) = text { p class="error" role="alert" { (text) } }
    }
}

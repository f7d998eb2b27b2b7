//! A form's page as a visitor fills it in: the title, where they stand ("Page 2 of 3",
//! counting only the pages they will see), the hidden fields the core checks, the
//! questions, Back and Next (or Submit), and the "Continue later" link; with the
//! scripts that enhance it (conditions, key letters, proof of work) when it needs them.

use super::conditions;
use super::controls::{Control, Filled, question};
use super::nonce::NONCE_FIELD;
use super::page::{
    HONEYPOT_FIELD, KEYS_PATH, NAV_FIELD, PAGE_FIELD, POW_FIELD, RESUME_FIELD, SCRIPT_PATH,
    TOKEN_FIELD, themed_page,
};
use super::theme;
use forms::pb;
use maud::{Markup, html};
use std::collections::HashSet;

/// Where a page stands in a form with pages, and what it links to.
#[derive(Default)]
pub(super) struct Paging<'a> {
    /// The core's progress: the page to show, its fields, the answers saved. None: the
    /// whole form on one page.
    pub(super) progress: Option<&'a pb::HostedProgress>,
    /// The URL query the page posts with (its prefill), kept from page to page so that
    /// fields on later pages are prefilled too; empty for none.
    pub(super) query: String,
    /// The origin of the links a visitor copies (`https://forms.example.com`), if known.
    pub(super) origin: Option<String>,
}

/// The address of a form's page, `/f/{short_id}?query`.
pub(super) fn page_address(short_id: &str, query: &str) -> String {
    if query.is_empty() {
        format!("/f/{short_id}")
    } else {
        format!("/f/{short_id}?{query}")
    }
}

/// The fields a page shows: on a page of a form with pages, those the core listed (in
/// form order); else all of them.
fn fields_shown<'f>(
    form: &'f pb::Form,
    progress: Option<&pb::HostedProgress>,
) -> Vec<&'f pb::FormField> {
    match progress {
        Some(p) => form
            .fields
            .iter()
            .filter(|f| p.fields.contains(&f.id))
            .collect(),
        None => form.fields.iter().collect(),
    }
}

/// A part of the page: a page break's title and the questions under it.
struct Part<'f> {
    title: Option<&'f pb::FormField>,
    fields: Vec<&'f pb::FormField>,
}

/// The page's questions: a page break opens a part of the form titled by its label; a
/// question or part with conditions on answers of the same page carries them for the
/// script, with a hint for pages without it. Returns the HTML and whether any element
/// has conditions.
fn questions(form: &pb::Form, shown: &[&pb::FormField], filled: &Filled) -> (Markup, bool) {
    let on_page: HashSet<&str> = shown.iter().map(|f| f.id.as_str()).collect();
    let first_error = shown.iter().find(|f| filled.errors.contains_key(&f.id));
    let mut parts = vec![Part {
        title: None,
        fields: Vec::new(),
    }];
    for field in shown {
        if field.r#type == "page_break" {
            parts.push(Part {
                title: Some(field),
                fields: Vec::new(),
            });
        } else if let Some(part) = parts.last_mut() {
            part.fields.push(field);
        }
    }
    let mut any = false;
    let mut rule = |field: &pb::FormField| {
        let conditions = conditions::same_page(field, &on_page);
        if conditions.is_empty() {
            return None;
        }
        any = true;
        Some((
            conditions::data_attribute(form, &conditions),
            conditions::hint(
                form,
                &conditions,
                if field.r#type == "page_break" {
                    "Answer this part"
                } else {
                    "Answer"
                },
            ),
        ))
    };
    let one = |field: &pb::FormField, rule: Option<(String, String)>| {
        let control = question(&Control {
            field,
            value: filled.values.get(&field.id),
            error: filled.errors.get(&field.id),
            autofocus: first_error.is_some_and(|f| f.id == field.id),
        });
        html! {
            @if let Some((data, hint)) = rule {
                div.cond data-show-if=(data) {
                    // A hidden field is never seen: its hint would speak of nothing.
                    @if field.r#type != "hidden" { p.hint { (hint) } }
                    (control)
                }
            } @else {
                (control)
            }
        }
    };
    let mut out = html! {};
    for part in parts {
        let inner = html! {
            @for field in &part.fields { (one(field, rule(field))) }
        };
        out = match part.title {
            None => html! { (out) (inner) },
            Some(title) => match rule(title) {
                Some((data, hint)) => html! {
                    (out)
                    section.part data-show-if=(data) {
                        h2 { (title.label) } p.hint { (hint) } (inner)
                    }
                },
                None => html! { (out) section.part { h2 { (title.label) } (inner) } },
            },
        };
    }
    (out, any)
}

/// The "Continue later" part of a page whose answers are saved: the resume link (with
/// the page's prefill, for the fields of pages to come), and the same as text to copy.
fn resume_part(short_id: &str, token: &str, paging: &Paging<'_>) -> Markup {
    let mut query = serde_urlencoded::to_string([("resume", token)]).unwrap_or_default();
    if !paging.query.is_empty() {
        query.push('&');
        query.push_str(&paging.query);
    }
    let link = page_address(short_id, &query);
    let full = format!("{}{link}", paging.origin.as_deref().unwrap_or(""));
    html! {
        section.card aria-labelledby="later" {
            h2 #later { "Continue later" }
            p {
                "Your answers so far are saved. To come back to this form later or on \
                 another device, keep this link: " a href=(link) { "Continue later" }
            }
            label for="resume-link" { "Your link to continue" }
            input #resume-link type="text" readonly value=(full);
        }
    }
}

/// Back (when there is a page before) and Next or Submit. Next comes first in the page,
/// so that Enter in a text box presses it; the style sheet puts Back on the left.
fn buttons(progress: Option<&pb::HostedProgress>, last: bool) -> Markup {
    html! {
        div.nav {
            @if last {
                button type="submit" { "Submit" }
            } @else {
                button type="submit" name=(NAV_FIELD) value="next" { "Next" }
            }
            @if progress.is_some_and(|p| p.previous_page > 0) {
                button.secondary type="submit" name=(NAV_FIELD) value="back" formnovalidate {
                    "Back"
                }
            }
        }
    }
}

pub(super) fn form_page(
    short_id: &str,
    form: &pb::Form,
    (token, nonce, pow): (&str, Option<&str>, Option<&pb::ProofOfWorkChallenge>),
    filled: &Filled,
    paging: &Paging<'_>,
) -> String {
    let progress = paging.progress;
    let shown = fields_shown(form, progress);
    let enctype = if shown.iter().any(|f| f.r#type == "file_upload") {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let keys = shown.iter().any(|f| {
        matches!(f.r#type.as_str(), "single_choice" | "multiple_choice") && !f.options.is_empty()
    });
    let (fields, has_conditions) = questions(form, &shown, filled);
    let action = match progress {
        Some(_) => page_address(short_id, &paging.query),
        None => page_address(short_id, ""),
    };
    // The page's number among those this visitor sees (a page hidden by an answer
    // does not count); a core of an older release sends only the form's pages.
    let (page_no, position, pages) = progress.map_or((1, 1, 1), |p| {
        if p.shown_count > 0 {
            (p.page.max(1), p.position.max(1), p.shown_count.max(1))
        } else {
            (p.page.max(1), p.page.max(1), p.page_count.max(1))
        }
    });
    let paged = progress.is_some() && (pages > 1 || p_previous(progress));
    let links = theme::links(short_id, form.theme.as_ref());
    let body = html! {
        form method="post" action=(action) enctype=(enctype) novalidate
            data-conditions[has_conditions]
            data-pow-algorithm=[pow.map(|c| &c.algorithm)]
            data-pow-challenge=[pow.map(|c| &c.challenge)]
            data-pow-salt=[pow.map(|c| &c.salt)]
            data-pow-max=[pow.map(|c| c.max_number)]
            data-pow-signature=[pow.map(|c| &c.signature)] {
            @if let Some(src) = links.as_ref().and_then(|l| l.logo.as_deref()) {
                img.logo src=(src) alt=(form.title) height="64";
            }
            h1 { (form.title) }
            @if pages > 1 {
                p.steps #steps { "Page " (position) " of " (pages) }
                progress value=(position) max=(pages) aria-labelledby="steps" {}
            }
            @if let Some(description) = form.description.as_ref().filter(|_| page_no == 1) {
                p { (description) }
            }
            @if let Some(banner) = &filled.banner { p.banner role="alert" { (banner) } }
            // The page's own fields come before any input: browsers send parts in page
            // order, and the edge admits a submission by its token when the first file
            // arrives.
            input type="hidden" name=(TOKEN_FIELD) value=(token);
            @if let Some(nonce) = nonce { input type="hidden" name=(NONCE_FIELD) value=(nonce); }
            @if pow.is_some() {
                input type="hidden" name=(POW_FIELD) value="";
                noscript {
                    p.banner {
                        "This form needs JavaScript to be sent: your browser solves a small \
                         puzzle that shows it is not a robot, with no third party involved. \
                         Please turn JavaScript on for this page."
                    }
                }
            }
            @if let Some(progress) = progress {
                input type="hidden" name=(PAGE_FIELD) value=(page_no);
                input type="hidden" name=(RESUME_FIELD) value=(progress.resume_token);
            }
            div.hp aria-hidden="true" {
                label for="hp" { "Leave empty" }
                input #hp name=(HONEYPOT_FIELD) tabindex="-1" autocomplete="off";
            }
            (fields)
            @if paged {
                (buttons(progress, position >= pages))
            } @else {
                div.nav { button type="submit" { "Submit" } }
            }
            @if pow.is_some() {
                p #pow-status .pow role="status" aria-live="polite" {}
            }
        }
        @if let Some(token) = progress.map(|p| p.resume_token.as_str()).filter(|t| !t.is_empty()) {
            (resume_part(short_id, token, paging))
        }
        @if has_conditions { script type="module" src=(conditions::SCRIPT_PATH) {} }
        @if keys { script type="module" src=(KEYS_PATH) {} }
        @if pow.is_some() { script type="module" src=(SCRIPT_PATH) {} }
    };
    let title = if pages > 1 {
        format!("{} (page {position} of {pages})", form.title)
    } else {
        form.title.clone()
    };
    let stylesheet = links.as_ref().map(|l| l.stylesheet.as_str());
    themed_page(&title, stylesheet, body)
}

/// Whether the page has one before it (Back is offered even when it is the only page
/// left to see).
fn p_previous(progress: Option<&pb::HostedProgress>) -> bool {
    progress.is_some_and(|p| p.previous_page > 0)
}

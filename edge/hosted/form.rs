//! A form's page as a visitor fills it in: the title, where they stand ("Page 2 of 3",
//! counting only the pages they will see), the hidden fields the core checks, the
//! questions, Back and Next (or Submit), and the "Continue later" link; with the
//! scripts that enhance it (conditions, key letters, proof of work) when it needs them.

use super::conditions;
use super::controls::{Control, Filled, question};
use super::nonce::NONCE_FIELD;
use super::page::{
    HONEYPOT_FIELD, KEYS_PATH, LANG_FIELD, NAV_FIELD, PAGE_FIELD, POW_FIELD, RESUME_FIELD,
    SCRIPT_PATH, STEPS_PATH, TOKEN_FIELD, themed_page,
};
use super::theme;
use super::words::Words;
use forms::pb::{self, FieldKind};
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
    /// The page's own words, in the language the form is shown in.
    pub(super) words: Words,
    /// The language the visitor asked for with `?lang=`, which a one-page form's post
    /// carries on (a form with pages carries its whole query).
    pub(super) lang: Option<String>,
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
fn questions(
    form: &pb::Form,
    shown: &[&pb::FormField],
    filled: &Filled,
    words: Words,
) -> (Markup, bool) {
    let on_page: HashSet<&str> = shown.iter().map(|f| f.id.as_str()).collect();
    let first_error = shown.iter().find(|f| filled.errors.contains_key(&f.id));
    let mut parts = vec![Part {
        title: None,
        fields: Vec::new(),
    }];
    for field in shown {
        if field.is(FieldKind::PageBreak) {
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
                if field.is(FieldKind::PageBreak) {
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
            words,
        });
        html! {
            @if let Some((data, hint)) = rule {
                div.cond data-show-if=(data) {
                    // A hidden field is never seen: its hint would speak of nothing.
                    @if !field.is(FieldKind::Hidden) { p.hint { (hint) } }
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
    let words = paging.words;
    html! {
        section.card aria-labelledby="later" {
            h2 #later { (words.get("later-title")) }
            p {
                (words.get("later-text")) " " a href=(link) { (words.get("later-title")) }
            }
            label for="resume-link" { (words.get("later-copy")) }
            input #resume-link type="text" readonly value=(full);
        }
    }
}

/// The languages of a form in several, as plain links (`?lang=`), each named in itself;
/// the one shown is marked, not linked.
fn switcher(short_id: &str, languages: &[String], words: Words) -> Markup {
    html! {
        nav.langs aria-label=(words.get("language")) {
            ul {
                @for tag in languages {
                    @let name = super::words::name_of(tag).unwrap_or(tag.as_str());
                    li {
                        @if tag == words.tag() {
                            span aria-current="true" lang=(tag) { (name) }
                        } @else {
                            a href=(page_address(short_id, &format!("lang={tag}"))) lang=(tag) hreflang=(tag) { (name) }
                        }
                    }
                }
            }
        }
    }
}

/// Back (when there is a page before) and Next or Submit. Next comes first in the page,
/// so that Enter in a text box presses it; the style sheet puts Back on the left.
fn buttons(progress: Option<&pb::HostedProgress>, last: bool, words: Words) -> Markup {
    html! {
        div.nav {
            @if last {
                button type="submit" { (words.get("submit")) }
            } @else {
                button type="submit" name=(NAV_FIELD) value="next" { (words.get("next")) }
            }
            @if progress.is_some_and(|p| p.previous_page > 0) {
                button.secondary type="submit" name=(NAV_FIELD) value="back" formnovalidate {
                    (words.get("back"))
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
    let enctype = if shown.iter().any(|f| f.is(FieldKind::FileUpload)) {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let keys = shown.iter().any(|f| {
        matches!(
            f.kind(),
            Some(FieldKind::SingleChoice | FieldKind::MultipleChoice)
        ) && !f.options.is_empty()
    });
    let words = paging.words;
    let (fields, has_conditions) = questions(form, &shown, filled, words);
    let lang_query = paging
        .lang
        .as_ref()
        .map(|lang| serde_urlencoded::to_string([("lang", lang)]).unwrap_or_default())
        .unwrap_or_default();
    let action = match progress {
        Some(_) => page_address(short_id, &paging.query),
        None => page_address(short_id, &lang_query),
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
    let steps = paged && one_at_a_time(form);
    // One question at a time counts questions, not pages.
    let counted = if steps { "questions" } else { "steps" };
    let languages = super::translate::languages(form);
    let several = languages.len() > 1;
    let links = theme::links(short_id, form.theme.as_ref());
    let body = html! {
        @if several { (switcher(short_id, &languages, words)) }
        form method="post" action=(action) enctype=(enctype) novalidate
            data-conditions[has_conditions]
            data-steps[steps]
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
                p.steps #steps {
                    (words.with(counted, &[("position", &position.to_string()), ("pages", &pages.to_string())]))
                }
                progress value=(position) max=(pages) aria-labelledby="steps" {}
                @if steps { p.sr #step-live role="status" aria-live="polite" {} }
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
            @if several { input type="hidden" name=(LANG_FIELD) value=(words.tag()); }
            @if pow.is_some() {
                input type="hidden" name=(POW_FIELD) value="";
                noscript {
                    p.banner { (words.get("pow-noscript")) }
                }
            }
            @if let Some(progress) = progress {
                input type="hidden" name=(PAGE_FIELD) value=(page_no);
                input type="hidden" name=(RESUME_FIELD) value=(progress.resume_token);
            }
            div.hp aria-hidden="true" {
                label for="hp" { (words.get("leave-empty")) }
                input #hp name=(HONEYPOT_FIELD) tabindex="-1" autocomplete="off";
            }
            (fields)
            @if paged {
                (buttons(progress, position >= pages, words))
            } @else {
                div.nav { button type="submit" { (words.get("submit")) } }
            }
            @if pow.is_some() {
                // The script's notes, in the page's language (it says them in English
                // on an owner's own page).
                p #pow-status .pow role="status" aria-live="polite"
                    data-checking=(words.get("pow-checking")) data-failed=(words.get("pow-failed"))
                    data-ready=(words.get("pow-ready")) {}
            }
        }
        @if let Some(token) = progress.map(|p| p.resume_token.as_str()).filter(|t| !t.is_empty()) {
            (resume_part(short_id, token, paging))
        }
        @if has_conditions { script type="module" src=(conditions::SCRIPT_PATH) {} }
        @if keys { script type="module" src=(KEYS_PATH) {} }
        @if steps { script type="module" src=(STEPS_PATH) {} }
        @if pow.is_some() { script type="module" src=(SCRIPT_PATH) {} }
    };
    let title = if pages > 1 {
        words.with(
            if steps {
                "questions-title"
            } else {
                "steps-title"
            },
            &[
                ("title", &form.title),
                ("position", &position.to_string()),
                ("pages", &pages.to_string()),
            ],
        )
    } else {
        form.title.clone()
    };
    let stylesheet = links.as_ref().map(|l| l.stylesheet.as_str());
    themed_page(words, &title, stylesheet, body)
}

/// Whether the owner asked for one question at a time (the core then sends each
/// question as its own page; the script makes the steps feel like one).
fn one_at_a_time(form: &pb::Form) -> bool {
    form.settings
        .as_ref()
        .and_then(|s| s.fields.get("one_question_at_a_time"))
        .is_some_and(|v| matches!(v.kind, Some(prost_types::value::Kind::BoolValue(true))))
}

/// Whether the page has one before it (Back is offered even when it is the only page
/// left to see).
fn p_previous(progress: Option<&pb::HostedProgress>) -> bool {
    progress.is_some_and(|p| p.previous_page > 0)
}

//! A language's own page (`/app/forms/{id}/languages/{tag}`): every text of the form
//! (`texts`), grouped by question, the default language's text beside a box for the
//! translation (its placeholder too), the texts not translated marked, and how many
//! are; one Save sends the core this language's `translations` alone (`translations.de`,
//! so that another language saved meanwhile stays), the texts the page does not show (a
//! kind no longer shown) kept. A page per language keeps a long form's translation out of the
//! builder's one page. A refusal comes back on this page with what was typed and the
//! problem beside its box. Removing the language is confirmed first.

use super::languages::{default_of, known, name, translated};
use super::texts::{self, Shape, Text};
use super::{form_id, update};
use crate::dashboard::layout::{self, FormTab, csrf};
use crate::dashboard::owner::{Owner, Posted, see_other};
use crate::http::error::reason_of;
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason, convert};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;

#[derive(Deserialize, Default)]
pub(crate) struct LanguageQuery {
    done: Option<String>,
}

/// What the page shows besides the form: the texts as typed (after a refusal), the
/// notice or the problem, and the text the problem is about.
#[derive(Default)]
struct Shown<'a> {
    typed: Option<&'a HashMap<String, String>>,
    notice: Option<&'static str>,
    problem: Option<&'a str>,
    /// The name of the box the problem is about, and what to fix there.
    at: Option<&'a str>,
    beside: Option<&'a str>,
}

/// The form and the language of the address: 404 for another account's form, a tag
/// that is no language a form may be in, or the form's default.
async fn load(owner: &Owner, id: &str, tag: &str) -> Result<pb::Form, Response> {
    let form = owner.form(id).await?;
    if !known(tag) || tag == default_of(&form) {
        return Err(owner.not_found());
    }
    Ok(form)
}

fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "added" => Some(
            "The language was added. Write its texts below: a text left empty is shown in the default language.",
        ),
        "saved" => Some("The texts were saved."),
        _ => None,
    }
}

/// `GET /app/forms/{id}/languages/{tag}`
pub(crate) async fn language_page(
    owner: Owner,
    Path((id, tag)): Path<(String, String)>,
    Query(q): Query<LanguageQuery>,
) -> Response {
    let form = match load(&owner, &id, &tag).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let shown = Shown {
        notice: done_text(q.done.as_deref()),
        ..Shown::default()
    };
    page(&owner, &form, &tag, &shown)
}

fn page(owner: &Owner, form: &pb::Form, tag: &str, shown: &Shown) -> Response {
    let title = format!("{} · {}", name(tag), form.title);
    owner.page(
        &title,
        layout::Section::Forms,
        render(owner, form, tag, shown),
    )
}

fn render(owner: &Owner, form: &pb::Form, tag: &str, shown: &Shown) -> Markup {
    let base = format!(
        "/app/forms/{}",
        crate::dashboard::results::segment(&form.id)
    );
    let default = default_of(form);
    let (language, own) = (name(tag), name(default));
    let stored = texts::translation(form, tag);
    let groups = texts::groups(form);
    let (done, total) = texts::completeness(form, tag);
    let on_form = translated(form).contains(&tag);
    // Each box's id: its place in the page (names may hold any character).
    let mut n = 0;
    let first_missing = groups
        .iter()
        .flat_map(|g| &g.texts)
        .position(|t| texts::get(&stored, &t.path).is_none());
    html! {
        (layout::crumbs(&[("/app/forms", "Forms"), (&base, &form.title)], language))
        h1 { (language) " texts" }
        (layout::form_tabs(&form.id, FormTab::Builder))
        (layout::notice(shown.notice))
        (layout::problem(shown.problem))
        p class="lang-progress" {
            strong { (done) " of " (total) " texts translated." }
            @if done == 0 && total > 0 {
                " Until they are, respondents reading " (language) " see the form in " (own) "."
            } @else if done < total {
                " " (total - done) " not translated, marked so below: respondents reading "
                (language) " see them in " (own) "."
            }
        }
        @if let Some(at) = first_missing { p { a href={"#t-" (at)} { "Go to the first text not translated" } } }
        @if !on_form {
            p class="warning" { (language) " is not one of the form's languages yet: saving its texts adds it." }
        }
        form method="post" action={(base) "/languages/" (tag)} class="translate" {
            (csrf(&owner.session))
            @for group in &groups {
                fieldset class="tr-group" {
                    legend { (group.heading) }
                    div class="tr-head" aria-hidden="true" { span { (own) } span { (language) } }
                    @for text in &group.texts {
                        @let id = { let id = format!("t-{n}"); n += 1; id };
                        (row(text, &id, tag, default, &stored, shown))
                    }
                }
            }
            div class="actions" {
                button type="submit" { "Save the " (language) " texts" }
                a class="button secondary" href={(base) "#languages"} { "Back to the builder" }
            }
        }
        @if on_form {
            form method="post" action={(base) "/languages/" (tag) "/remove"} class="actions" {
                (csrf(&owner.session))
                button type="submit" class="secondary" { "Remove " (language) "…" }
            }
        }
    }
}

/// One text: its name, the default language's text, the box for the translation.
fn row(
    text: &Text,
    id: &str,
    tag: &str,
    default: &str,
    stored: &Map<String, Value>,
    shown: &Shown,
) -> Markup {
    let key = text.name();
    let value = match shown.typed {
        Some(typed) => typed.get(&key).map_or("", String::as_str),
        None => texts::get(stored, &text.path).unwrap_or(""),
    };
    let missing = texts::get(stored, &text.path).is_none();
    let problem = shown.at.filter(|at| *at == key).and(shown.beside);
    let invalid = problem.map(|_| "true");
    let source = format!("{id}-source");
    let error = format!("{id}-error");
    let described = match problem {
        Some(_) => format!("{source} {error}"),
        None => source.clone(),
    };
    html! {
        div.tr-row.missing[missing] {
            label for=(id) {
                (text.label)
                @if missing { " " span class="badge missing" { "Not translated" } }
            }
            p class="tr-source" id=(source) lang=(default) {
                // Said to a screen reader; shown on a phone, where the columns' heads are not.
                span class="tr-lang" { "In " (name(default)) ": " }
                (text.source)
            }
            @match text.shape {
                Shape::Long => {
                    textarea id=(id) name=(key) lang=(tag) dir="auto" rows="3" maxlength="5000"
                        placeholder=(text.source) aria-describedby=(described) aria-invalid=[invalid] { (value) }
                }
                Shape::Url => {
                    input id=(id) name=(key) type="url" lang=(tag) dir="auto" maxlength="2000"
                        placeholder=(text.source) value=(value) aria-describedby=(described) aria-invalid=[invalid];
                }
                Shape::Line => {
                    input id=(id) name=(key) type="text" lang=(tag) dir="auto" maxlength="500"
                        placeholder=(text.source) value=(value) aria-describedby=(described) aria-invalid=[invalid];
                }
            }
            @if let Some(problem) = problem { p class="field-error" id=(error) { (problem) } }
        }
    }
}

/// The core's refusal of a translation in the page's words, and the box it is about:
/// `translations.de.fields.<id>.label must …` is "Question: must …" beside that box.
fn refusal<'a>(message: &str, tag: &str, all: &'a [&'a Text]) -> (String, Option<&'a Text>) {
    let prefix = format!("translations.{tag}.");
    let at = message.strip_prefix(&prefix).and_then(|rest| {
        all.iter()
            .filter(|t| rest.starts_with(&t.dotted()))
            .max_by_key(|t| t.dotted().len())
            .map(|t| (*t, &rest[t.dotted().len()..]))
    });
    match at {
        Some((text, rest)) => {
            let rest = rest.trim_start_matches([':', ' ']);
            (
                format!("{}: {rest}.", text.label).replace("..", "."),
                Some(text),
            )
        }
        None => (super::words::humane(message), None),
    }
}

/// `POST /app/forms/{id}/languages/{tag}`: the language's texts, as the page posts
/// them (one box per text, named by its place; empty: not translated).
pub(crate) async fn save_language(
    owner: Owner,
    Path((id, tag)): Path<(String, String)>,
    Posted { csrf, form: posted }: Posted<Vec<(String, String)>>,
) -> Response {
    let form = match load(&owner, &id, &tag).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let typed: HashMap<String, String> = posted.into_iter().collect();
    let groups = texts::groups(&form);
    let all: Vec<&Text> = groups.iter().flat_map(|g| &g.texts).collect();
    let mut translation = texts::translation(&form, &tag);
    for text in &all {
        // A box not sent leaves its text as it is (a page older than the form).
        if let Some(value) = typed.get(&text.name()) {
            let value = value.trim();
            let value = (!value.is_empty()).then(|| value.to_owned());
            texts::set(&mut translation, &text.path, value);
        }
    }
    // This language alone: another's texts saved meanwhile stay as they are.
    let mut translations = Map::new();
    translations.insert(tag.clone(), Value::Object(translation));
    let change = pb::Form {
        id: form.id.clone(),
        translations: Some(convert::object_to_struct(&translations)),
        ..Default::default()
    };
    let path = format!("translations.{tag}");
    match update(&owner, &csrf, change, &[path.as_str()]).await {
        Ok(_) => see_other(&format!(
            "/app/forms/{}/languages/{tag}?done=saved",
            form.id
        )),
        Err(status) if matches!(reason_of(&status), Some(ErrorReason::ValidationError)) => {
            let (words, at) = refusal(status.message(), &tag, &all);
            let problem = format!("Nothing was saved. {words}");
            let at = at.map(Text::name);
            let shown = Shown {
                typed: Some(&typed),
                problem: Some(&problem),
                at: at.as_deref(),
                beside: Some(&words),
                ..Shown::default()
            };
            let mut response = page(&owner, &form, &tag, &shown);
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            response
        }
        Err(status) => owner.failure(&status),
    }
}

#[derive(Deserialize)]
pub(crate) struct Removal {
    #[serde(default)]
    confirm: String,
}

/// `POST /app/forms/{id}/languages/{tag}/remove`: asks first (the texts go with it),
/// then removes the language.
pub(crate) async fn remove_language(
    owner: Owner,
    Path((id, tag)): Path<(String, String)>,
    Posted {
        csrf: token,
        form: posted,
    }: Posted<Removal>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return owner.not_found();
    };
    let form = match load(&owner, &id, &tag).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let base = format!("/app/forms/{id}");
    let language = name(&tag);
    if posted.confirm != "yes" {
        let (done, _) = texts::completeness(&form, &tag);
        let body = html! {
            (layout::crumbs(&[("/app/forms", "Forms"), (&base, &form.title)], "Remove a language"))
            h1 { "Remove " (language) "?" }
            form method="post" action={(base) "/languages/" (tag) "/remove"} class="card danger" {
                (csrf(&owner.session))
                input type="hidden" name="confirm" value="yes";
                p { "Respondents can no longer choose it, and its " (done) " translated texts are deleted." }
                div class="actions" {
                    button type="submit" class="danger" { "Remove " (language) }
                    a class="button secondary" href={(base) "/languages/" (tag)} { "Keep it" }
                }
            }
        };
        let title = format!("Remove {language} · {}", form.title);
        return owner.page(&title, layout::Section::Forms, body);
    }
    // The path with no text of the language sent: it goes, the others stay.
    let change = pb::Form {
        id: id.clone(),
        ..Default::default()
    };
    let path = format!("translations.{tag}");
    match update(&owner, &token, change, &[path.as_str()]).await {
        Ok(_) => see_other(&format!("{base}?done=language-removed#languages")),
        Err(status) => owner.failure(&status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_text_as_the_page_does() {
        let text = |path: &[&str], label: &str| Text {
            path: path.iter().map(|p| (*p).to_owned()).collect(),
            label: label.into(),
            source: "x".into(),
            shape: Shape::Line,
        };
        let redirect = text(&["redirect_url"], "Redirect after submitting");
        let label = text(&["fields", "f1", "label"], "Question");
        let all = [&redirect, &label];
        let (words, at) = refusal(
            "translations.de.redirect_url must be an http or https URL",
            "de",
            &all,
        );
        assert_eq!(
            words,
            "Redirect after submitting: must be an http or https URL."
        );
        assert_eq!(at.map(Text::name).as_deref(), Some("redirect_url"));
        let (words, at) = refusal(
            "translations.de.fields.f1.label must be at most 500 characters",
            "de",
            &all,
        );
        assert_eq!(words, "Question: must be at most 500 characters.");
        assert!(at.is_some());
        let (_, at) = refusal("translations.fr.title must not be empty", "de", &all);
        assert!(at.is_none());
    }
}

//! The builder's "Languages" fold: the languages a form is shown in, its default first,
//! and how much of each further language is translated ("German: 14 of 18 texts",
//! counted over the texts the form has: `texts`), each linked to its own page where
//! its texts are written (`translate`). From the fold the owner adds a language and
//! says which language the form's own texts are in (the default); both are one
//! `UpdateForm` (`translations`, `default_language`: the API book, "A form in several
//! languages"). The core decides what a valid language is; its refusal comes back in
//! the fold, opened, with the language that was chosen.

use super::{View, form_id, texts, update};
use crate::dashboard::layout::{self, csrf};
use crate::dashboard::owner::{Owner, Posted, see_other};
use crate::hosted::words::{english_name_of, name_of};
use crate::http::error::reason_of;
use crate::http::site::Origin;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason, convert};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The languages a form may be in, as the core says them: tag, name in English (for
/// the owner), name in itself (the tag where the page has no words for it).
fn all_languages() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    pb::FORM_LANGUAGES.iter().map(|&tag| {
        let english = english_name_of(tag).unwrap_or(tag);
        (tag, english, name_of(tag).unwrap_or(english))
    })
}

/// A language's name in English, for the owner (the tag itself if it is not one of ours).
pub(super) fn name(tag: &str) -> &str {
    all_languages()
        .find(|(t, _, _)| *t == tag)
        .map_or(tag, |(_, name, _)| name)
}

/// Whether `tag` is one of the languages a form may be in.
pub(super) fn known(tag: &str) -> bool {
    pb::FORM_LANGUAGES.contains(&tag)
}

/// The form's default language.
pub(super) fn default_of(form: &pb::Form) -> &str {
    form.default_language.as_deref().unwrap_or("en")
}

/// The languages the form has a translation into, in the list's order.
pub(super) fn translated(form: &pb::Form) -> Vec<&'static str> {
    let keys = form.translations.as_ref().map(|t| &t.fields);
    all_languages()
        .map(|(tag, _, _)| tag)
        .filter(|tag| keys.is_some_and(|k| k.contains_key(*tag)))
        .collect()
}

/// The form's translations as an object, to change and send back whole.
pub(super) fn translations_of(form: &pb::Form) -> Map<String, Value> {
    form.translations
        .as_ref()
        .map(convert::struct_to_object)
        .unwrap_or_default()
}

/// The fold: the default language, then each further one with its completeness and
/// a link to its page; adding a language; choosing the default.
pub(super) fn section(owner: &Owner, form: &pb::Form, base: &str, view: &View) -> Markup {
    let default = default_of(form);
    let more = translated(form);
    let addable: Vec<_> = all_languages()
        .filter(|(tag, _, _)| *tag != default && !more.contains(tag))
        .collect();
    let defaults: Vec<_> = all_languages()
        .filter(|(tag, _, _)| !more.contains(tag))
        .collect();
    let problem = view.languages;
    let chosen = view.language.unwrap_or("");
    html! {
        details class="fold" id="languages" open[problem.is_some()] {
            summary { h2 { "Languages" } }
            p class="muted hint" {
                "Respondents see the form in their browser's language when it is one of these \
                 (or the one they pick on the page). A text not translated is shown in the \
                 default language."
            }
            ul class="lang-list" {
                li { strong { (name(default)) } " — the form's own texts (default)" }
                @for tag in &more {
                    @let (done, total) = texts::completeness(form, tag);
                    li {
                        a href={(base) "/languages/" (tag)} { (name(tag)) }
                        ": " (done) " of " (total) " texts"
                        @if done < total { " " span class="badge missing" { (total - done) " not translated" } }
                    }
                }
            }
            @if let Some(problem) = problem {
                p class="error" id="lang-problem" role="alert" { (problem) }
            }
            @if !addable.is_empty() {
                form method="post" action={(base) "/languages"} class="row" {
                    (csrf(&owner.session))
                    input type="hidden" name="action" value="add";
                    div class="grow" {
                        label for="lang-add" { "Add a language" }
                        select id="lang-add" name="language" aria-describedby=[problem.map(|_| "lang-problem")] {
                            @for (tag, english, own) in &addable {
                                option value=(tag) selected[*tag == chosen] { (english) " (" (own) ")" }
                            }
                        }
                    }
                    div { button type="submit" { "Add the language" } }
                }
            }
            form method="post" action={(base) "/languages"} class="row" {
                (csrf(&owner.session))
                input type="hidden" name="action" value="default";
                div class="grow" {
                    label for="lang-default" { "The form's own texts are in" }
                    select id="lang-default" name="language" aria-describedby="lang-default-hint" {
                        @for (tag, english, _) in &defaults {
                            option value=(tag) selected[*tag == default] { (english) }
                        }
                    }
                }
                div { button type="submit" class="secondary" { "Save the default language" } }
            }
            p class="muted hint" id="lang-default-hint" {
                "The language you wrote the questions in. A language that has its own texts \
                 cannot be the default: remove them first, on its page."
            }
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct LanguageForm {
    /// `add` (a translation) or `default` (the form's own language).
    #[serde(default)]
    action: String,
    #[serde(default)]
    language: String,
}

/// The core's refusal about a language in the page's words (`default`: the owner
/// chose the default language).
fn refusal_words(message: &str, tag: &str, default: bool) -> String {
    // A tag typed by hand may be anything: it is named only when it looks like one.
    let named = if !tag.is_empty()
        && tag.len() <= 12
        && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        format!("“{tag}”")
    } else {
        "That".to_owned()
    };
    if message.contains("must be one of the languages") {
        let all: Vec<&str> = all_languages().map(|(_, n, _)| n).collect();
        format!(
            "{named} is not a language a form can be in. Choose one of: {}.",
            all.join(", ")
        )
    } else if message.contains("is the default language") && default {
        format!(
            "{} has texts of its own: remove them on its page first, or choose another language.",
            name(tag)
        )
    } else if message.contains("is the default language") {
        format!(
            "{} is the form's default language: its texts are the form's own. Choose another.",
            name(tag)
        )
    } else {
        super::words::humane(message)
    }
}

/// The builder page with the fold open, its problem beside the choice kept (422).
fn refused(owner: &Owner, form: &pb::Form, origin: &Origin, tag: &str, problem: &str) -> Response {
    let text = format!("Nothing was saved. {problem}");
    let view = View {
        problem: Some(&text),
        languages: Some(problem),
        language: Some(tag),
        ..View::default()
    };
    let body = super::view::render(owner, form, origin, &view);
    let mut response = owner.page(&form.title, layout::Section::Forms, body);
    *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    response
}

/// `POST /app/forms/{id}/languages`: adds a language (then on to its page), or sets
/// the default language.
pub(crate) async fn languages(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<LanguageForm>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return owner.not_found();
    };
    let form = match owner.form(&id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let tag = posted.language.trim();
    if tag.is_empty() {
        return refused(&owner, &form, &origin, tag, "Choose a language.");
    }
    let (change, paths, to) = match posted.action.as_str() {
        "add" => {
            if translations_of(&form).contains_key(tag) {
                return see_other(&format!("/app/forms/{id}/languages/{tag}"));
            }
            let mut translations = Map::new();
            translations.insert(tag.to_owned(), Value::Object(Map::new()));
            let change = pb::Form {
                id: id.clone(),
                translations: Some(convert::object_to_struct(&translations)),
                ..Default::default()
            };
            let to = format!("/app/forms/{id}/languages/{tag}?done=added");
            (change, format!("translations.{tag}"), to)
        }
        "default" => {
            let change = pb::Form {
                id: id.clone(),
                default_language: Some(tag.to_owned()),
                ..Default::default()
            };
            let to = format!("/app/forms/{id}?done=language-default#languages");
            (change, "default_language".to_owned(), to)
        }
        _ => {
            return refused(
                &owner,
                &form,
                &origin,
                tag,
                "Choose what to do with the language.",
            );
        }
    };
    match update(&owner, &csrf, change, &[paths.as_str()]).await {
        Ok(_) => see_other(&to),
        Err(status) if matches!(reason_of(&status), Some(ErrorReason::ValidationError)) => {
            let problem = refusal_words(status.message(), tag, paths == "default_language");
            refused(&owner, &form, &origin, tag, &problem)
        }
        Err(status) => owner.failure(&status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cores_refusals_about_languages_read_as_words() {
        let unknown = "translations.xx: the language must be one of the languages a form may be in: en, de (got \"xx\")";
        let words = refusal_words(unknown, "xx", false);
        assert!(
            words.starts_with(
                "“xx” is not a language a form can be in. Choose one of: English, German,"
            ),
            "{words}"
        );
        assert!(!words.contains("translations"), "{words}");
        let odd = refusal_words(unknown, "<b>not a tag at all</b>", false);
        assert!(odd.starts_with("That is not a language"), "{odd}");
        let same = "translations.de is the default language, whose texts are the form's own";
        let added = refusal_words(same, "de", false);
        assert!(
            added.starts_with("German is the form's default language"),
            "{added}"
        );
        let chosen = refusal_words(same, "de", true);
        assert!(
            chosen.starts_with("German has texts of its own"),
            "{chosen}"
        );
    }

    #[test]
    fn the_list_of_languages_is_the_cores() {
        // The core's languages, in its order, each named (tests/api/languages.rs
        // holds the core's refusal to the same tags).
        let tags: Vec<&str> = all_languages().map(|(t, _, _)| t).collect();
        assert_eq!(
            tags,
            ["en", "de", "fr", "es", "it", "pt", "nl", "pl", "ja", "ar"]
        );
        assert!(all_languages().all(|(t, english, own)| english != t && own != t));
        assert_eq!(name("de"), "German");
        assert_eq!(name("xx"), "xx");
    }
}

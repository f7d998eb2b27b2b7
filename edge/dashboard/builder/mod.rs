//! A form's page (`/app/forms/{id}`): the builder. The form is a compact list of its
//! questions (`list`); one of them at a time opens for editing (`?edit=<id>`,
//! `editor`), with only its kind's settings and its conditions (`conditions`); new
//! questions come from a palette of kinds, at any place (`?add=<n>`, `palette`); a
//! preview stays beside the list (`preview`). Below: the title and description, the
//! settings (`settings`), the languages (`languages`; each language's texts on a page
//! of its own, `translate`, over the list of a form's texts, `texts`), the status and
//! delete (`lifecycle`); once published, the share panel (`view`).
//!
//! Every change is a plain form post that sends the core one `UpdateForm` (the whole
//! question list for question changes, with the ids of the questions kept so that their
//! answers stay attached), then back to the page (post-redirect-get); the handlers are
//! `changes` (questions) and the sections' own. The rules (what a valid question or
//! setting is, which status may follow which) are the core's: its refusals come back on
//! the page in words (`words`), with what to fix (422). The page works without
//! JavaScript; `assets/builder.js` only saves without reloading, drags, and follows
//! typing in the preview. The kinds of question come from one table (`kinds`).

mod changes;
mod conditions;
pub(crate) mod design;
mod editor;
mod kinds;
mod languages;
mod lifecycle;
mod list;
mod logo;
mod palette;
mod parse;
mod preview;
mod reading;
mod settings;
mod texts;
mod translate;
mod view;
mod words;

pub(crate) use changes::{
    add_field, duplicate_field, edit_conditions, edit_field, move_field, remove_field, reorder,
};
pub(crate) use design::design;
pub(crate) use languages::languages;
pub(crate) use lifecycle::{delete, status};
pub(crate) use logo::logo;
pub(crate) use settings::settings;
pub(crate) use translate::{language_page, remove_language, save_language};
pub(crate) use view::details;
pub(crate) use words::humane;

use super::layout::Section;
use super::owner::{Owner, see_other};
use crate::http::error::reason_of;
use crate::http::site::Origin;
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason, convert};
use serde::Deserialize;
use serde_json::{Map, Value};

/// What the page's address may ask for; anything else is ignored.
#[derive(Deserialize, Default)]
pub(crate) struct PageQuery {
    /// A change just made (`words::done_text`).
    done: Option<String>,
    /// The question open for editing.
    edit: Option<String>,
    /// The place the palette adds at (0-based; absent: the end).
    add: Option<usize>,
    /// The earlier question a new condition of the open question reads.
    when: Option<String>,
}

/// What the page shows besides the form: the open question, the palette's place, the
/// notice or the problem.
#[derive(Default)]
pub(super) struct View<'a> {
    pub edit: Option<&'a str>,
    pub add: Option<usize>,
    pub when: Option<&'a str>,
    pub notice: Option<&'a str>,
    pub problem: Option<&'a str>,
    /// Why notifications would reach no one (the settings say it beside the box).
    pub mail: Option<&'static str>,
    /// A design (theme) property the core refused, shown beside its input.
    pub design: Option<design::Problem<'a>>,
    /// A refusal about a language, shown in the Languages fold (opened), with the
    /// language that was chosen (`language`) kept.
    pub languages: Option<&'a str>,
    pub language: Option<&'a str>,
}

/// A form id from the path: a UUID, else there is no such page.
fn form_id(id: &str) -> Option<String> {
    uuid::Uuid::parse_str(id).ok().map(|u| u.to_string())
}

/// Sends `form`'s values for `paths` to the core; the form as it is after.
async fn update(
    owner: &Owner,
    csrf: &str,
    form: pb::Form,
    paths: &[&str],
) -> Result<Option<pb::Form>, tonic::Status> {
    let request = pb::UpdateFormRequest {
        id: form.id.clone(),
        form: Some(form),
        update_mask: Some(prost_types::FieldMask {
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
        }),
    };
    owner
        .state
        .forms()
        .update_form(owner.change(request, csrf))
        .await
        .map(|r| r.into_inner().form)
}

/// The page again, with a problem to fix (422) and nothing changed; `edit` keeps the
/// question that was being edited open.
async fn refused(
    owner: &Owner,
    id: &str,
    origin: &Origin,
    edit: Option<&str>,
    problem: &str,
) -> Response {
    match owner.form(id).await {
        Ok(form) => refused_page(owner, &form, origin, edit, problem),
        Err(response) => response,
    }
}

/// The page of `form` (as stored, or as the owner typed it) with a problem to fix (422).
fn refused_page(
    owner: &Owner,
    form: &pb::Form,
    origin: &Origin,
    edit: Option<&str>,
    problem: &str,
) -> Response {
    {
        {
            let text = format!("Nothing was saved. {problem}");
            let view = View {
                edit,
                problem: Some(&text),
                ..View::default()
            };
            let mut response = owner.page(
                &form.title,
                Section::Forms,
                view::render(owner, form, origin, &view),
            );
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            response
        }
    }
}

/// After a change: on to the page with its notice (and `then`: more of the address,
/// such as the question to keep open), or the page with the core's reason when it
/// refused the values.
async fn after(
    owner: &Owner,
    id: &str,
    origin: &Origin,
    result: Result<Option<pb::Form>, tonic::Status>,
    done: &str,
    then: &str,
    edit: Option<&str>,
) -> Response {
    match result {
        Ok(_) => see_other(&format!("/app/forms/{id}?done={done}{then}")),
        Err(status) if matches!(reason_of(&status), Some(ErrorReason::ValidationError)) => {
            refused(owner, id, origin, edit, &words::humane(status.message())).await
        }
        Err(status) => owner.failure(&status),
    }
}

/// `GET /app/forms/{id}`
pub(crate) async fn page(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Response {
    match owner.form(&id).await {
        Ok(form) => {
            // The account says whether a notification can reach anyone; a page
            // without that warning is better than no page.
            let account = owner
                .state
                .owner()
                .get_own_account(owner.request(pb::GetOwnAccountRequest {}))
                .await;
            let mail = account.ok().and_then(|reply| {
                crate::dashboard::account::notifications_warning(&reply.into_inner())
            });
            let view = View {
                edit: q.edit.as_deref(),
                add: q.add,
                when: q.when.as_deref(),
                notice: words::done_text(q.done.as_deref()),
                problem: None,
                mail,
                ..View::default()
            };
            owner.page(
                &form.title,
                Section::Forms,
                view::render(&owner, &form, &origin, &view),
            )
        }
        Err(response) => response,
    }
}

fn settings_of(form: &pb::Form) -> Map<String, Value> {
    form.settings
        .as_ref()
        .map(convert::struct_to_object)
        .unwrap_or_default()
}

fn is_published(form: &pb::Form) -> bool {
    form.status == i32::from(pb::FormStatus::Published)
}

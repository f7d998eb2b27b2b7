//! The posts that change the questions: add (at a place), edit, conditions, move one
//! place, reorder all (the drag's post), duplicate, delete (confirmed first). Each reads the form, makes
//! the change to its question list and sends the core one `UpdateForm` with the whole
//! list (existing questions with their ids), then back to the page, the question
//! concerned open or in view.

use super::kinds::{Kind, kind_of};
use super::parse::{FieldForm, apply_field};
use super::{after, refused, refused_page, update, words};
use crate::dashboard::layout;
use crate::dashboard::owner::{Owner, Posted};
use crate::http::error::reason_of;
use crate::http::site::Origin;
use axum::extract::Path;
use axum::response::Response;
use forms::pb;
use forms::pb::ErrorReason;
use maud::html;
use serde::Deserialize;

/// Sends the whole question list of `form`; `then` makes the rest of the address from
/// the form as saved (`None`: the page as it was).
async fn save_fields(
    owner: &Owner,
    origin: &Origin,
    csrf: &str,
    form: pb::Form,
    done: &str,
    edit: Option<&str>,
    then: impl FnOnce(&pb::Form) -> String,
) -> Response {
    let id = form.id.clone();
    let change = pb::Form {
        id: form.id.clone(),
        fields: form.fields.clone(),
        ..Default::default()
    };
    let result = update(owner, csrf, change, &["fields"]).await;
    // A refused edit of the open question shows it as typed, to be corrected, not lost.
    if let (Err(status), Some(open)) = (&result, edit)
        && form.fields.iter().any(|f| f.id == open)
        && matches!(reason_of(status), Some(ErrorReason::ValidationError))
    {
        let problem = words::humane(status.message());
        return refused_page(owner, &form, origin, Some(open), &problem);
    }
    let rest = match &result {
        Ok(Some(saved)) => then(saved),
        _ => String::new(),
    };
    after(owner, &id, origin, result, done, &rest, edit).await
}

/// The address part that opens question `fid`.
fn open(fid: &str) -> String {
    format!("&edit={fid}#q-{fid}")
}

/// `POST /app/forms/{id}/fields`: adds a question at `position` (or the end), then
/// opens it for its kind's settings.
pub(crate) async fn add_field(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<FieldForm>,
) -> Response {
    let mut form = match owner.form(&id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let mut field = pb::FormField {
        r#type: posted.kind.trim().to_owned(),
        ..Default::default()
    };
    let at = posted
        .position
        .as_deref()
        .and_then(|p| p.trim().parse::<usize>().ok())
        .filter(|at| *at <= form.fields.len())
        .unwrap_or(form.fields.len());
    if let Err(problem) = apply_field(&mut field, posted) {
        return refused(&owner, &form.id, &origin, None, problem).await;
    }
    // A choice added from the palette comes with two options to rename, as in the
    // editors owners know: the core takes no choice without options.
    if field.options.is_empty() && kind_of(&field.r#type).is_some_and(Kind::options) {
        field.options = ["Option 1", "Option 2"]
            .map(|label| pb::FieldOption {
                id: String::new(),
                label: label.to_owned(),
            })
            .into();
    }
    form.fields.insert(at, field);
    let then = |saved: &pb::Form| {
        saved
            .fields
            .get(at)
            .map_or_else(String::new, |f| open(&f.id))
    };
    save_fields(&owner, &origin, &csrf, form, "field-added", None, then).await
}

/// The form and the position of one of its questions; 404 for either missing.
async fn load_field(
    owner: &Owner,
    id: &str,
    field_id: &str,
) -> Result<(pb::Form, usize), Response> {
    let form = owner.form(id).await?;
    match form.fields.iter().position(|f| f.id == field_id) {
        Some(at) => Ok((form, at)),
        None => Err(owner.not_found()),
    }
}

/// `POST /app/forms/{id}/fields/{field_id}`: edits a question, keeping its id.
pub(crate) async fn edit_field(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, form: posted }: Posted<FieldForm>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if let Err(problem) = apply_field(&mut form.fields[at], posted) {
        return refused(&owner, &form.id, &origin, Some(&field_id), problem).await;
    }
    let then = |_: &pb::Form| open(&field_id);
    save_fields(
        &owner,
        &origin,
        &csrf,
        form,
        "field-saved",
        Some(&field_id),
        then,
    )
    .await
}

/// `POST /app/forms/{id}/fields/{field_id}/conditions`: the question's `show_if`, as
/// the conditions editor posts it (numbered rows: see `conditions`).
pub(crate) async fn edit_conditions(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, form: posted }: Posted<Vec<(String, String)>>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match super::conditions::parse(&posted, &form.fields) {
        Ok(show_if) => form.fields[at].show_if = show_if,
        Err(problem) => {
            return refused(&owner, &form.id, &origin, Some(&field_id), &problem).await;
        }
    }
    let then = |_: &pb::Form| format!("&edit={field_id}#conditions");
    save_fields(
        &owner,
        &origin,
        &csrf,
        form,
        "conditions-saved",
        Some(&field_id),
        then,
    )
    .await
}

#[derive(Deserialize)]
pub(crate) struct Move {
    #[serde(default)]
    direction: String,
}

/// `POST /app/forms/{id}/fields/{field_id}/move`: one place up or down.
pub(crate) async fn move_field(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, form: posted }: Posted<Move>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let to = match posted.direction.as_str() {
        "up" => at.checked_sub(1),
        "down" => Some(at + 1).filter(|to| *to < form.fields.len()),
        _ => None,
    };
    let Some(to) = to else {
        let problem = "That question cannot move that way.";
        return refused(&owner, &form.id, &origin, None, problem).await;
    };
    form.fields.swap(at, to);
    let then = |_: &pb::Form| format!("#q-{field_id}");
    save_fields(&owner, &origin, &csrf, form, "field-moved", None, then).await
}

#[derive(Deserialize)]
pub(crate) struct Order {
    /// Every question's id, in the new order.
    #[serde(default)]
    order: Vec<String>,
}

/// `POST /app/forms/{id}/order`: the questions in a new order (the drag's post). The
/// ids must be the form's, each once: a list changed meanwhile is not guessed at.
pub(crate) async fn reorder(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<Order>,
) -> Response {
    let mut form = match owner.form(&id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let mut fields = Vec::with_capacity(form.fields.len());
    for fid in &posted.order {
        if let Some(at) = form.fields.iter().position(|f| &f.id == fid) {
            fields.push(form.fields.swap_remove(at));
        }
    }
    if !form.fields.is_empty() || fields.len() != posted.order.len() {
        let problem =
            "The questions changed meanwhile: here they are as they are now; move them again.";
        return refused(&owner, &form.id, &origin, None, problem).await;
    }
    form.fields = fields;
    save_fields(&owner, &origin, &csrf, form, "field-moved", None, |_| {
        String::new()
    })
    .await
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

/// `POST /app/forms/{id}/fields/{field_id}/duplicate`: a copy below it (new ids for it
/// and its options, no reference: those are the original's), opened.
pub(crate) async fn duplicate_field(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let mut copy = form.fields[at].clone();
    copy.id = String::new();
    copy.r#ref = None;
    copy.label = format!("{} (copy)", copy.label);
    for option in &mut copy.options {
        option.id = String::new();
    }
    form.fields.insert(at + 1, copy);
    let then = |saved: &pb::Form| {
        saved
            .fields
            .get(at + 1)
            .map_or_else(String::new, |f| open(&f.id))
    };
    save_fields(&owner, &origin, &csrf, form, "field-duplicated", None, then).await
}

/// What the delete button posts: `confirm=yes` once the owner has said so (the
/// builder's script sends it with its Undo delay; without script, the confirmation
/// page's button does).
#[derive(Deserialize)]
pub(crate) struct Removal {
    #[serde(default)]
    confirm: String,
}

/// `POST /app/forms/{id}/fields/{field_id}/remove`: asks first (what goes, and a way
/// to keep it), then deletes.
pub(crate) async fn remove_field(
    owner: Owner,
    origin: Origin,
    Path((id, field_id)): Path<(String, String)>,
    Posted { csrf, form: posted }: Posted<Removal>,
) -> Response {
    let (mut form, at) = match load_field(&owner, &id, &field_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if posted.confirm != "yes" {
        return confirm_removal(&owner, &form, &form.fields[at]);
    }
    form.fields.remove(at);
    let then = |_: &pb::Form| "#questions".to_owned();
    save_fields(
        &owner,
        &origin,
        &csrf,
        form,
        "field-removed",
        Some(&field_id),
        then,
    )
    .await
}

/// The question's deletion, to confirm: what goes, Delete, or keep it.
fn confirm_removal(owner: &Owner, form: &pb::Form, field: &pb::FormField) -> Response {
    let base = format!(
        "/app/forms/{}",
        crate::dashboard::results::segment(&form.id)
    );
    let fid = crate::dashboard::results::segment(&field.id);
    let what = if field.is(pb::FieldKind::PageBreak) {
        "page break"
    } else {
        "question"
    };
    let label = if field.label.trim().is_empty() {
        "(no label)"
    } else {
        field.label.trim()
    };
    let body = html! {
        (layout::crumbs(&[("/app/forms", "Forms"), (&base, &form.title)], "Delete a question"))
        h1 { "Delete the " (what) " “" (label) "”?" }
        form method="post" action={(base) "/fields/" (fid) "/remove"} class="card danger" {
            (layout::csrf(&owner.session))
            input type="hidden" name="confirm" value="yes";
            p { "It leaves the form at once: respondents no longer see it. The answers already given to it stay in their responses but are no longer shown." }
            div class="actions" {
                button type="submit" class="danger" { "Delete the " (what) }
                a class="button secondary" href={(base) "?edit=" (fid) "#q-" (fid)} { "Keep it" }
            }
        }
    };
    owner.page(
        &format!("Delete “{label}” · {}", form.title),
        layout::Section::Forms,
        body,
    )
}

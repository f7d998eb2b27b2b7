//! The form's status (publish, close now and reopen, archive, back to draft) and its
//! deletion with the title typed, on the page and as posts.

use super::{after, form_id, refused, update};
use crate::dashboard::layout::csrf;
use crate::dashboard::owner::{Owner, Posted, see_other};
use crate::http::site::Origin;
use axum::extract::Path;
use axum::response::Response;
use chrono::Utc;
use forms::pb::{self, convert};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The status and its actions, one line under the form's title.
pub(super) fn section(owner: &Owner, form: &pb::Form, base: &str, closed: bool) -> Markup {
    let status = pb::FormStatus::try_from(form.status).unwrap_or(pb::FormStatus::Unspecified);
    let action = |value: &str, label: &str, class: &str| {
        html! {
            form method="post" action={(base) "/status"} {
                (csrf(&owner.session))
                input type="hidden" name="action" value=(value);
                button type="submit" class=(class) { (label) }
            }
        }
    };
    html! {
        section class="lifecycle" aria-labelledby="lifecycle-h" id="lifecycle" {
            h2 id="lifecycle-h" class="visually-hidden" { "Status" }
            p class="muted" {
                @match status {
                    pb::FormStatus::Published if closed => { "Published, but closed: it does not accept responses." }
                    pb::FormStatus::Published => {
                        "Published: it accepts responses"
                        @if let Some(at) = super::settings::closes_at(form) {
                            // UTC on the page; the script shows it on the owner's clock.
                            " until " time datetime=(convert::rfc3339(at)) data-local { (at.format("%Y-%m-%d %H:%M UTC")) }
                        }
                        "."
                    }
                    pb::FormStatus::Archived => { "Archived: it does not accept responses; its data is kept." }
                    _ => { "Draft: only you can see it." }
                }
            }
            div class="actions" {
                @if status != pb::FormStatus::Published { (action("publish", "Publish", "")) }
                @if status == pb::FormStatus::Published {
                    @if closed { (action("reopen", "Reopen", "")) } @else { (action("close", "Close now", "secondary")) }
                }
                @if status != pb::FormStatus::Archived { (action("archive", "Archive", "secondary")) }
                @if status != pb::FormStatus::Draft { (action("draft", "Back to draft", "secondary")) }
            }
        }
    }
}

/// Deleting the form, folded at the foot of the page.
pub(super) fn delete_fold(owner: &Owner, form: &pb::Form, base: &str) -> Markup {
    html! {
        details class="fold" id="delete" {
            summary { h2 { "Delete this form" } }
            form method="post" action={(base) "/delete"} {
                (csrf(&owner.session))
                p { "Deleting the form removes for good, with no way back: the form and its address, all its responses (finished and unfinished) and their files, its webhooks and their delivery log." }
                label for="delete-confirm" {
                    "To confirm, type its title: "
                    span class="expected" { (form.title) }
                }
                input id="delete-confirm" name="confirm_title" type="text" required autocomplete="off" spellcheck="false"
                    data-confirm-input="delete-button" data-expected=(form.title);
                div class="actions" { button id="delete-button" type="submit" class="danger" { "Delete this form" } }
            }
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct Lifecycle {
    #[serde(default)]
    action: String,
}

/// `POST /app/forms/{id}/status`: publish, close (now), reopen, archive, back to draft.
pub(crate) async fn status(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<Lifecycle>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return owner.not_found();
    };
    let to_status = |status: pb::FormStatus| pb::Form {
        id: id.clone(),
        status: status.into(),
        ..Default::default()
    };
    let closes = |at: Value| {
        let mut settings = Map::new();
        settings.insert("closes_at".into(), at);
        pb::Form {
            id: id.clone(),
            settings: Some(convert::object_to_struct(&settings)),
            ..Default::default()
        }
    };
    let (change, path, done) = match posted.action.as_str() {
        "publish" => (to_status(pb::FormStatus::Published), "status", "published"),
        "archive" => (to_status(pb::FormStatus::Archived), "status", "archived"),
        "draft" => (to_status(pb::FormStatus::Draft), "status", "drafted"),
        "close" => (
            closes(Value::String(convert::rfc3339(Utc::now()))),
            "settings",
            "closed",
        ),
        "reopen" => (closes(Value::Null), "settings", "reopened"),
        _ => {
            return refused(
                &owner,
                &id,
                &origin,
                None,
                "Choose publish, close, reopen, archive or back to draft.",
            )
            .await;
        }
    };
    let result = update(&owner, &csrf, change, &[path]).await;
    after(&owner, &id, &origin, result, done, "#lifecycle", None).await
}

#[derive(Deserialize)]
pub(crate) struct Confirm {
    #[serde(default)]
    confirm_title: String,
}

/// `POST /app/forms/{id}/delete`: only with the form's title typed exactly (checked
/// here too: the script that holds the button back is a convenience).
pub(crate) async fn delete(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<Confirm>,
) -> Response {
    let form = match owner.form(&id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    if posted.confirm_title != form.title {
        return refused(
            &owner,
            &form.id,
            &origin,
            None,
            "To delete the form, type its title exactly as it is shown.",
        )
        .await;
    }
    let deleted = owner
        .state
        .forms()
        .delete_form(owner.change(
            pb::DeleteFormRequest {
                id: form.id.clone(),
            },
            &csrf,
        ))
        .await;
    match deleted {
        Ok(_) => see_other("/app/forms?done=deleted"),
        Err(status) => owner.failure(&status),
    }
}

//! Downloads of the inbox (CSV, Excel, NDJSON: the core's export, streamed as the REST
//! edge streams it) with the inbox's filter (a filter it can not take leads back to the
//! inbox, which says what to fix beside it), and what is done to the ticked rows of the
//! inbox (`POST …/responses/selection`): download them, or delete them after a
//! confirmation.

use super::filter::{Filter, InboxQuery};
use super::inbox::core_value;
use super::segment;
use crate::dashboard::layout::{self, Section, csrf};
use crate::dashboard::owner::{Owner, Posted, see_other};
use crate::http::download;
use axum::extract::{Path, Query, RawQuery};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use forms::pb;
use maud::html;
use serde::Deserialize;

/// Most rows one selection acts on (a page of the inbox holds at most 100).
const MAX_CHOSEN: usize = 100;

/// `GET /app/forms/{id}/responses/export.csv`
pub(crate) async fn export_csv(
    owner: Owner,
    path: Path<String>,
    query: Query<InboxQuery>,
    raw: RawQuery,
) -> Response {
    export(owner, path, query, raw, pb::ExportFormat::Csv).await
}

/// `GET /app/forms/{id}/responses/export.ndjson`
pub(crate) async fn export_ndjson(
    owner: Owner,
    path: Path<String>,
    query: Query<InboxQuery>,
    raw: RawQuery,
) -> Response {
    export(owner, path, query, raw, pb::ExportFormat::Ndjson).await
}

/// `GET /app/forms/{id}/responses/export.xlsx`
pub(crate) async fn export_xlsx(
    owner: Owner,
    path: Path<String>,
    query: Query<InboxQuery>,
    raw: RawQuery,
) -> Response {
    export(owner, path, query, raw, pb::ExportFormat::Xlsx).await
}

/// A page saying what to fix, with the way back to the inbox.
fn not_done(owner: &Owner, form_id: &str, title: &str, text: &str) -> Response {
    let body = html! {
        h1 { (title) }
        p class="error" role="alert" { (text) }
        p { a href={"/app/forms/" (segment(form_id)) "/responses"} { "Back to the responses" } }
    };
    let mut response = owner.page(title, Section::Forms, body);
    *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    response
}

/// The core's export of `request` in `format`, streamed as an attachment.
async fn stream(
    owner: &Owner,
    mut request: pb::ExportResponsesRequest,
    format: pb::ExportFormat,
) -> Result<Response, tonic::Status> {
    let form_id = request.form_id.clone();
    request.format = format.into();
    let reply = owner
        .state
        .responses()
        .export_responses(owner.request(request))
        .await?;
    Ok(download::export(reply, &form_id, format).into_response())
}

/// The core's export with the inbox's filter (finished or unfinished responses). A
/// filter that can not be applied leads back to the inbox with the same filter, where
/// what to fix is shown beside it, what was typed kept (the inbox's own download links
/// carry only filters it applied).
async fn export(
    owner: Owner,
    Path(form_id): Path<String>,
    Query(q): Query<InboxQuery>,
    RawQuery(raw): RawQuery,
    format: pb::ExportFormat,
) -> Response {
    let back = || {
        let inbox = format!("/app/forms/{}/responses", segment(&form_id));
        match raw.as_deref().filter(|r| !r.is_empty()) {
            Some(query) => see_other(&format!("{inbox}?{query}")),
            None => see_other(&inbox),
        }
    };
    let Ok(filter) = Filter::parse(&q) else {
        return back();
    };
    // The condition's value is read as the inbox reads it (a checkbox's Yes/No).
    let form = match owner.form(&form_id).await {
        Ok(form) => form,
        Err(page) => return page,
    };
    let (since, until) = filter.bounds();
    let request = pb::ExportResponsesRequest {
        form_id: form.id.clone(),
        since,
        until,
        status: filter.status().into(),
        filter: filter.core_filter(|c| core_value(&form, c)),
        ..Default::default()
    };
    match stream(&owner, request, format).await {
        Ok(response) => response,
        Err(status)
            if crate::http::error::reason_of(&status) == Some(pb::ErrorReason::ValidationError) =>
        {
            back()
        }
        Err(status) => owner.failure(&status),
    }
}

/// The ticked rows and what to do with them.
#[derive(Deserialize)]
pub(crate) struct Chosen {
    #[serde(default)]
    id: Vec<String>,
    #[serde(default)]
    action: String,
    /// The deletion's confirmation box.
    #[serde(default)]
    confirm: String,
}

/// `POST /app/forms/{id}/responses/selection`: download the ticked responses, or
/// delete them (a confirmation first, then each through the core's DeleteResponse).
pub(crate) async fn selection(
    owner: Owner,
    Path(form_id): Path<String>,
    Posted {
        csrf: token,
        form: chosen,
    }: Posted<Chosen>,
) -> Response {
    // The form first: another account's form is not found, whatever was ticked.
    let form = match owner.form(&form_id).await {
        Ok(form) => form,
        Err(page) => return page,
    };
    let inbox = format!("/app/forms/{}/responses", segment(&form.id));
    if chosen.id.is_empty() {
        return see_other(&format!("{inbox}?done=chose-none"));
    }
    if chosen.id.len() > MAX_CHOSEN {
        return not_done(
            &owner,
            &form_id,
            "Too many responses",
            "Tick at most 100 responses at a time.",
        );
    }
    let format = match chosen.action.as_str() {
        "csv" => pb::ExportFormat::Csv,
        "xlsx" => pb::ExportFormat::Xlsx,
        "delete" => return delete(owner, form, &inbox, &token, chosen).await,
        _ => {
            return not_done(
                &owner,
                &form_id,
                "Nothing done",
                "Choose Download or Delete.",
            );
        }
    };
    let request = pb::ExportResponsesRequest {
        form_id: form.id,
        // Finished and unfinished alike: the rows ticked may be of either tab.
        status: pb::ResponseStatus::All.into(),
        filter: Some(pb::ResponseFilter {
            ids: chosen.id,
            ..Default::default()
        }),
        ..Default::default()
    };
    stream(&owner, request, format)
        .await
        .unwrap_or_else(|status| owner.failure(&status))
}

/// The deletion of the ticked responses: asks to confirm, then deletes each.
async fn delete(
    owner: Owner,
    form: pb::Form,
    inbox: &str,
    token: &str,
    chosen: Chosen,
) -> Response {
    if chosen.confirm != "yes" {
        let n = chosen.id.len();
        let body = html! {
            (layout::crumbs(&[
                ("/app/forms", "Forms"),
                (&format!("/app/forms/{}", segment(&form.id)), &form.title),
                (inbox, "Responses"),
            ], "Delete"))
            h1 { "Delete " (n) @if n == 1 { " response" } @else { " responses" } "?" }
            form method="post" action={(inbox) "/selection"} class="card danger" {
                (csrf(&owner.session))
                input type="hidden" name="action" value="delete";
                @for id in &chosen.id { input type="hidden" name="id" value=(id); }
                p { "They and their files are removed for good." }
                div class="inline" {
                    input id="confirm" name="confirm" type="checkbox" value="yes" required;
                    label for="confirm" { "Yes, delete them" }
                }
                button type="submit" class="danger" { "Delete" }
            }
            p { a href=(inbox) { "Back to the responses" } }
        };
        return owner.page("Delete responses", Section::Forms, body);
    }
    for id in chosen.id {
        let deleted = owner
            .state
            .responses()
            .delete_response(owner.change(
                pb::DeleteResponseRequest {
                    form_id: form.id.clone(),
                    id,
                },
                token,
            ))
            .await;
        match deleted {
            Ok(_) => {}
            // Deleted already (another tab, a second press): what was asked holds.
            Err(status) if status.code() == tonic::Code::NotFound => {}
            Err(status) => return owner.failure(&status),
        }
    }
    see_other(&format!("{inbox}?done=deleted-some"))
}

//! The forms list (`/app/forms`): search, status filter, response counts, the newest
//! response and a 14-day sparkline per form, from the core's counters; and creating a
//! form.

use super::chart;
use super::layout::{self, Section, csrf, status_badge, when};
use super::owner::{Owner, Posted, see_other};
use axum::extract::Query;
use axum::response::Response;
use forms::pb;
use maud::html;
use serde::Deserialize;

/// Forms per page of the list.
const PER_PAGE: i32 = 25;

#[derive(Deserialize, Default)]
pub(crate) struct ListQuery {
    #[serde(default)]
    q: String,
    #[serde(default)]
    status: String,
    page: Option<i32>,
    done: Option<String>,
}

fn status_filter(status: &str) -> pb::FormStatus {
    match status {
        "draft" => pb::FormStatus::Draft,
        "published" => pb::FormStatus::Published,
        "archived" => pb::FormStatus::Archived,
        _ => pb::FormStatus::Unspecified,
    }
}

/// What `?done=` says after a change; nothing else is ever shown.
fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "deleted" => Some("The form was deleted."),
        _ => None,
    }
}

/// `GET /app/forms`
pub(crate) async fn list(owner: Owner, Query(q): Query<ListQuery>) -> Response {
    let page = q.page.unwrap_or(1).max(1);
    let listed = owner
        .state
        .forms()
        .list_forms(owner.request(pb::ListFormsRequest {
            page: Some(page),
            per_page: Some(PER_PAGE),
            status: status_filter(&q.status).into(),
            search: q.q.clone(),
        }))
        .await;
    let listed = match listed {
        Ok(reply) => reply.into_inner(),
        Err(status) => return owner.failure(&status),
    };
    let ids = listed.forms.iter().map(|f| f.id.clone()).collect();
    let activity = owner
        .state
        .owner()
        .get_form_activity(owner.request(pb::GetFormActivityRequest {
            form_ids: ids,
            days: Some(14),
        }))
        .await;
    let activity = match activity {
        Ok(reply) => reply.into_inner().forms,
        Err(status) => return owner.failure(&status),
    };
    let total_pages = listed
        .pagination
        .as_ref()
        .map_or(1, |p| p.total_pages.max(1));
    let link = |page: i32| {
        let query = serde_urlencoded::to_string([
            ("q", q.q.as_str()),
            ("status", q.status.as_str()),
            ("page", &page.to_string()),
        ])
        .unwrap_or_default();
        format!("/app/forms?{query}")
    };
    let body = html! {
        h1 { "Forms" }
        (layout::notice(done_text(q.done.as_deref())))
        @if owner.may("editor") { div class="card" {
            form method="post" action="/app/forms" class="row" {
                (csrf(&owner.session))
                div class="grow" {
                    label for="new-title" { "New form title" }
                    input id="new-title" name="title" type="text" required maxlength="200";
                }
                div { button type="submit" { "Create form" } }
            }
        } }
        form method="get" action="/app/forms" class="row list-filter" role="search" {
            div class="grow" {
                label for="q" { "Search titles" }
                input id="q" name="q" type="search" value=(q.q);
            }
            div {
                label for="status" { "Status" }
                select id="status" name="status" {
                    @for (value, label) in [("", "Any"), ("draft", "Draft"), ("published", "Published"), ("archived", "Archived")] {
                        option value=(value) selected[q.status == value] { (label) }
                    }
                }
            }
            div { button type="submit" class="secondary" { "Filter" } }
        }
        @if listed.forms.is_empty() {
            p class="muted" { "No forms match. Create one above." }
        } @else {
            div class="table-wrap" tabindex="0" role="region" aria-label="Forms" {
                table {
                    thead { tr {
                        th scope="col" { "Title" }
                        th scope="col" { "Status" }
                        th scope="col" class="num" { "Responses" }
                        th scope="col" { "Last response" }
                        th scope="col" { "Last 14 days" }
                    } }
                    tbody {
                        @for form in &listed.forms {
                            @let seen = activity.iter().find(|a| a.form_id == form.id);
                            @let daily = seen.map(|a| a.daily.as_slice()).unwrap_or(&[]);
                            tr {
                                td { a href={"/app/forms/" (form.id)} { (form.title) } }
                                td { (status_badge(form.status)) }
                                td class="num" { (seen.map_or(0, |a| a.response_count)) }
                                td { (when(seen.and_then(|a| a.last_response_at.as_ref()))) }
                                td { (chart::sparkline(daily, &format!("{} responses in the last 14 days", daily.iter().sum::<i64>()))) }
                            }
                        }
                    }
                }
            }
            nav class="pager" aria-label="Pages" {
                @if page > 1 { a href=(link(page - 1)) rel="prev" { "Previous" } }
                span { "Page " (page) " of " (total_pages) }
                @if page < total_pages { a href=(link(page + 1)) rel="next" { "Next" } }
            }
        }
    };
    owner.page("Forms", Section::Forms, body)
}

#[derive(Deserialize)]
pub(crate) struct NewForm {
    #[serde(default)]
    title: String,
}

/// `POST /app/forms`: a draft with no field yet; on to its builder.
pub(crate) async fn create(owner: Owner, Posted { csrf, form }: Posted<NewForm>) -> Response {
    let created = owner
        .state
        .forms()
        .create_form(owner.change(
            pb::CreateFormRequest {
                title: form.title.trim().to_owned(),
                ..Default::default()
            },
            &csrf,
        ))
        .await;
    match created.map(|r| r.into_inner().form) {
        Ok(Some(form)) => see_other(&format!("/app/forms/{}?done=created", form.id)),
        Ok(None) => see_other("/app/forms"),
        Err(status) => owner.failure(&status),
    }
}

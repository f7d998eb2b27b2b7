//! A form's responses inbox (`/app/forms/{id}/responses`): finished responses, or the
//! unfinished ones (`?show=unfinished`, with the page each reached), in a table with a
//! column per question headed by its label, newest first, in keyset pages (the core's
//! cursor mode: never a count or an offset, so a deep page costs what the first one
//! does); a search, a condition on an answer and dates, whose mistakes are shown beside
//! the input that caused them; live refresh; downloads; and a selection of rows to
//! delete or download together (a form around the table: no script needed).

use super::answer;
use super::filter::{CONDITIONS, Condition, Filter, InboxQuery, Input, Mistake, with_query};
use super::segment;
use crate::dashboard::layout::{self, Section, csrf};
use crate::dashboard::owner::Owner;
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::FieldKind;
use forms::pb::{self, convert, list_responses_response::Pagination};
use maud::{Markup, html};
use serde_json::{Map, Value};

/// Characters of an answer shown in a cell.
const CELL_CHARS: usize = 80;
/// Earlier cursors kept for the Previous link (beyond that, Newest still works).
const TRAIL: usize = 40;
/// Seconds between live refreshes of the table.
const REFRESH_SECONDS: &str = "10";

/// What `?done=` says after a change; nothing else is ever shown.
fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "deleted" => Some("The response was deleted."),
        "deleted-some" => Some("The chosen responses were deleted."),
        "chose-none" => Some("Tick the responses to delete or download first."),
        _ => None,
    }
}

/// A submission time with seconds, in the owner's zone (`layout::moment`).
pub(crate) fn at_seconds(ts: Option<&prost_types::Timestamp>) -> Markup {
    layout::moment(ts, true, false)
}

/// The answers of a response, keyed by field id.
pub(crate) fn answers(response: &pb::FormResponse) -> Map<String, Value> {
    response
        .answers
        .as_ref()
        .map(convert::struct_to_object)
        .unwrap_or_default()
}

/// The condition's value as the core reads it: a checkbox's Yes/No as true/false (the
/// words a person types; the core's own reading of choices by label and of numbers
/// is kept).
pub(crate) fn core_value(form: &pb::Form, c: &Condition) -> String {
    let checkbox = form
        .fields
        .iter()
        .any(|f| f.id == c.field && f.is(FieldKind::Checkbox));
    match c.value.to_lowercase().as_str() {
        "yes" if checkbox => "true".to_owned(),
        "no" if checkbox => "false".to_owned(),
        _ => c.value.clone(),
    }
}

/// The core refused the condition: what the question takes, in words, from its kind
/// (the refusal itself names the API's query, which no one here typed).
fn condition_refused(form: &pb::Form, c: &Condition, refusal: &str) -> Mistake {
    let Some(field) = form.fields.iter().find(|f| f.id == c.field) else {
        return Mistake {
            at: Input::Condition,
            text: "That question is no longer in the form: choose another.".to_owned(),
        };
    };
    let label = field.label.trim();
    if refusal.contains("does not apply") {
        let words = CONDITIONS
            .iter()
            .find(|(name, _, _)| *name == c.op)
            .map_or("this", |(_, words, _)| words);
        return Mistake {
            at: Input::Condition,
            text: format!(
                "“{label}” can not be compared with “{words}”: choose another condition."
            ),
        };
    }
    let takes = match field.kind() {
        Some(FieldKind::Number | FieldKind::Scale) => "a number, such as 7".to_owned(),
        Some(FieldKind::Rating) => "a number of stars, such as 4".to_owned(),
        Some(FieldKind::Date) => "a date, such as 2026-01-31".to_owned(),
        Some(FieldKind::Checkbox) => "Yes or No".to_owned(),
        Some(FieldKind::SingleChoice | FieldKind::Dropdown | FieldKind::MultipleChoice) => {
            let options: Vec<&str> = field.options.iter().map(|o| o.label.as_str()).collect();
            format!("one of its options: {}", options.join(", "))
        }
        Some(FieldKind::Phone) => "a phone number, such as +44 20 7946 0958".to_owned(),
        _ => "text of at most 200 characters".to_owned(),
    };
    Mistake {
        at: Input::Value,
        text: format!("For “{label}”, enter {takes}."),
    }
}

/// The error beside an input, when it is the one that was wrong.
fn error_at(mistake: Option<&Mistake>, input: Input) -> Markup {
    html! {
        @if let Some(m) = mistake.filter(|m| m.at == input) {
            p class="error field-error" id={(input.id()) "-error"} role="alert" { (m.text) }
        }
    }
}

/// `aria-invalid` and `aria-describedby` of an input with a mistake.
fn invalid(mistake: Option<&Mistake>, input: Input) -> (Option<&'static str>, Option<String>) {
    match mistake.filter(|m| m.at == input) {
        Some(_) => (Some("true"), Some(format!("{}-error", input.id()))),
        None => (None, None),
    }
}

/// The filter form, from what was typed (kept as is when it was wrong).
fn filter_form(base: &str, form: &pb::Form, q: &InboxQuery, mistake: Option<&Mistake>) -> Markup {
    let typed = |v: &Option<String>| v.clone().unwrap_or_default();
    let field = typed(&q.field);
    let op = q.op.clone().unwrap_or_else(|| "eq".to_owned());
    let unfinished = q.show.as_deref() == Some("unfinished");
    let (q_bad, q_desc) = invalid(mistake, Input::Search);
    let (op_bad, op_desc) = invalid(mistake, Input::Condition);
    let (value_bad, value_desc) = invalid(mistake, Input::Value);
    let (since_bad, since_desc) = invalid(mistake, Input::Since);
    let (until_bad, until_desc) = invalid(mistake, Input::Until);
    html! {
        form method="get" action=(base) class="row inbox-filter" role="search" aria-label="Search and filter" {
            @if unfinished { input type="hidden" name="show" value="unfinished"; }
            div {
                label for="q" { "Search answers" }
                input id="q" name="q" type="search" maxlength="200" value=(typed(&q.q)) aria-invalid=[q_bad] aria-describedby=[q_desc];
                (error_at(mistake, Input::Search))
            }
            div {
                label for="field" { "Answer to" }
                select id="field" name="field" {
                    option value="" { "(any question)" }
                    @for f in form.fields.iter().filter(|f| answer::is_question(f)) {
                        option value=(f.id) selected[field == f.id] { (f.label) }
                    }
                }
            }
            div {
                label for="op" { "Condition" }
                select id="op" name="op" aria-invalid=[op_bad] aria-describedby=[op_desc] {
                    @for (name, words, _) in CONDITIONS {
                        option value=(name) selected[op == name] { (words) }
                    }
                }
                (error_at(mistake, Input::Condition))
            }
            div {
                label for="value" { "Value" }
                input id="value" name="value" type="text" maxlength="200" value=(typed(&q.value)) aria-invalid=[value_bad] aria-describedby=[value_desc];
                (error_at(mistake, Input::Value))
            }
            div {
                label for="since" { "From" }
                input id="since" name="since" type="date" value=(typed(&q.since)) aria-invalid=[since_bad] aria-describedby={"days-zone" @if let Some(d) = since_desc { " " (d) }};
                (error_at(mistake, Input::Since))
            }
            div {
                label for="until" { "To (included)" }
                input id="until" name="until" type="date" value=(typed(&q.until)) aria-invalid=[until_bad] aria-describedby={"days-zone" @if let Some(d) = until_desc { " " (d) }};
                (error_at(mistake, Input::Until))
            }
            // The days are UTC's unless app.js sends the computer's zone (and says so).
            p class="muted hint days-zone" id="days-zone" data-day-zone-note { "Days in UTC." }
            input type="hidden" name="tz" value=(typed(&q.tz)) data-day-zone;
            @if let Some(per_page) = q.per_page.as_deref().filter(|p| !p.trim().is_empty()) {
                input type="hidden" name="per_page" value=(per_page);
            }
            div { button type="submit" class="secondary" { "Filter" } }
            @if mistake.is_some() || [&q.q, &q.field, &q.since, &q.until].iter().any(|v| v.as_deref().is_some_and(|v| !v.is_empty())) {
                div { a href={(base) @if unfinished { "?show=unfinished" }} { "Clear" } }
            }
        }
        @if let Some(m) = mistake.filter(|m| m.at == Input::PerPage) {
            p class="error" role="alert" { (m.text) }
        }
    }
}

/// The page's head: breadcrumbs, title, the Finished/Unfinished tabs.
fn head(form: &pb::Form, base: &str, unfinished: bool) -> Markup {
    html! {
        (layout::crumbs(&[("/app/forms", "Forms"), (&format!("/app/forms/{}", segment(&form.id)), &form.title)], "Responses"))
        h1 { "Responses" span class="visually-hidden" { " to " (form.title) } }
        (layout::form_tabs(&form.id, layout::FormTab::Responses))
        @if let Some(days) = form.retention_days {
            p class="muted" id="retention" {
                "Responses are kept " (days) (if days == 1 { " day" } else { " days" })
                ": older ones are deleted automatically, with their files. "
                a href={"/app/forms/" (segment(&form.id)) "#settings"} { "Change in Settings" }
            }
        }
        nav class="subnav which" aria-label="Which responses" {
            a href=(base) aria-current=[(!unfinished).then_some("page")] { "Finished" }
            a href={(base) "?show=unfinished"} aria-current=[unfinished.then_some("page")] { "Unfinished" }
        }
    }
}

/// `GET /app/forms/{id}/responses`
pub(crate) async fn inbox(
    owner: Owner,
    Path(form_id): Path<String>,
    Query(q): Query<InboxQuery>,
) -> Response {
    let form = match owner.form(&form_id).await {
        Ok(form) => form,
        Err(page) => return page,
    };
    let base = format!("/app/forms/{}/responses", segment(&form.id));
    let unfinished = q.show.as_deref() == Some("unfinished");
    let filter = match Filter::parse(&q) {
        Ok(filter) => filter,
        Err(mistake) => return refused(&owner, &form, &base, &q, &mistake),
    };
    let cursor = q.cursor.clone().filter(|c| !c.is_empty());
    let (since, until) = filter.bounds();
    let listed = owner
        .state
        .responses()
        .list_responses(owner.request(pb::ListResponsesRequest {
            form_id: form.id.clone(),
            per_page: Some(filter.per_page),
            sort: pb::SortOrder::Desc.into(),
            since,
            until,
            // Present, even empty: cursor mode (keyset, no count).
            cursor: Some(cursor.clone().unwrap_or_default()),
            page: None,
            status: filter.status().into(),
            filter: filter.core_filter(|c| core_value(&form, c)),
        }))
        .await;
    let listed = match listed {
        Ok(reply) => reply.into_inner(),
        Err(status)
            if crate::http::error::reason_of(&status) == Some(pb::ErrorReason::ValidationError) =>
        {
            // A cursor the core refuses, or a condition it can not apply (a value the
            // field can not have): say which, beside it.
            let mistake = match (&cursor, &filter.condition) {
                (None, Some(c)) => condition_refused(&form, c, status.message()),
                (None, None) => Mistake {
                    at: Input::Search,
                    text: "Search for at most 200 characters.".to_owned(),
                },
                (Some(_), _) => Mistake {
                    at: Input::PerPage,
                    text: "This page's position in the list is not valid (the address was changed?). Start again from the newest responses.".to_owned(),
                },
            };
            return refused(&owner, &form, &base, &q, &mistake);
        }
        Err(status) => return owner.failure(&status),
    };
    let next_cursor = match listed.pagination {
        Some(Pagination::Cursor(c)) => c.next_cursor,
        _ => None,
    };
    let trail: Vec<&str> = q
        .back
        .as_deref()
        .unwrap_or("")
        .split('.')
        .filter(|c| !c.is_empty())
        .collect();
    let here = {
        let mut pairs = filter.pairs();
        if let Some(c) = &cursor {
            pairs.push(("cursor", c.clone()));
            if !trail.is_empty() {
                pairs.push(("back", trail.join(".")));
            }
        }
        with_query(&base, &pairs)
    };
    let next = next_cursor.map(|next| {
        let mut back: Vec<&str> = trail.clone();
        if let Some(c) = &cursor {
            back.push(c);
        }
        let skip = back.len().saturating_sub(TRAIL);
        let mut pairs = filter.pairs();
        pairs.push(("cursor", next));
        if back.len() > skip {
            pairs.push(("back", back[skip..].join(".")));
        }
        with_query(&base, &pairs)
    });
    let previous = cursor.as_ref().map(|_| {
        let mut pairs = filter.pairs();
        if let Some((last, rest)) = trail.split_last() {
            pairs.push(("cursor", (*last).to_owned()));
            if !rest.is_empty() {
                pairs.push(("back", rest.join(".")));
            }
        }
        with_query(&base, &pairs)
    });
    let newest = with_query(&base, &filter.pairs());
    let download = |ext: &str| {
        let mut pairs = filter.pairs();
        pairs.retain(|(name, _)| *name != "per_page");
        with_query(&format!("{base}/export.{ext}"), &pairs)
    };
    let empty = match () {
        _ if cursor.is_some() => "No more responses.",
        _ if filter.search.is_some() || filter.condition.is_some() => {
            "No response matches this search."
        }
        _ if filter.narrows() => "No response in these dates.",
        _ if unfinished => {
            "No unfinished responses: everyone who started has finished, or no one has started yet."
        }
        _ => "No responses yet. They appear here as they arrive.",
    };
    let body = html! {
        (head(&form, &base, unfinished))
        (layout::notice(done_text(q.done.as_deref())))
        (filter_form(&base, &form, &q, None))
        p class="row inbox-actions" {
            a href=(here) { "Refresh" }
            a href=(download("csv")) download { "Download CSV" }
            a href=(download("xlsx")) download { "Download Excel (XLSX)" }
            a href=(download("ndjson")) download { "Download NDJSON" }
        }
        div id="inbox" data-refresh=(here) data-every=(REFRESH_SECONDS) {
            @if listed.responses.is_empty() {
                p class="muted" { (empty) }
            } @else {
                (table(&owner, &form, &base, &listed.responses, unfinished))
            }
            (pager(previous.as_deref(), cursor.is_some().then_some(newest.as_str()), next.as_deref()))
        }
    };
    owner.page(&format!("Responses · {}", form.title), Section::Forms, body)
}

/// The inbox with a mistake beside the filter, what was typed kept, and no rows.
fn refused(
    owner: &Owner,
    form: &pb::Form,
    base: &str,
    q: &InboxQuery,
    mistake: &Mistake,
) -> Response {
    let unfinished = q.show.as_deref() == Some("unfinished");
    let body = html! {
        (head(form, base, unfinished))
        (filter_form(base, form, q, Some(mistake)))
        p class="muted" { "The responses are listed again once the filter is changed or "
            a href={(base) @if unfinished { "?show=unfinished" }} { "cleared" } "." }
    };
    let mut response = owner.page(&format!("Responses · {}", form.title), Section::Forms, body);
    *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    response
}

/// The rows, inside the selection's form: a box per row, then the answers as a person
/// reads them (`answer`), a column per question (never a page break).
fn table(
    owner: &Owner,
    form: &pb::Form,
    base: &str,
    responses: &[pb::FormResponse],
    unfinished: bool,
) -> Markup {
    let questions: Vec<&pb::FormField> = form
        .fields
        .iter()
        .filter(|f| answer::is_question(f))
        .collect();
    html! {
        form method="post" action={(base) "/selection"} class="selection" {
            (csrf(&owner.session))
            div class="row selection-actions" {
                span class="muted" { "With the ticked responses:" }
                button type="submit" name="action" value="csv" class="secondary" { "Download CSV" }
                button type="submit" name="action" value="xlsx" class="secondary" { "Download Excel" }
                @if owner.may("admin") {
                    button type="submit" name="action" value="delete" class="danger" { "Delete…" }
                }
            }
            div class="table-wrap" tabindex="0" role="region" aria-label={"Responses, newest first" @if unfinished { ", unfinished" }} {
                table class="responses" {
                    caption class="visually-hidden" { "Responses to " (form.title) ", newest first" }
                    thead { tr {
                        th scope="col" class="pick" { span class="visually-hidden" { "Choose" } }
                        th scope="col" { @if unfinished { "Last saved" } @else { "Submitted" } " (" (layout::zone_name()) ")" }
                        @if unfinished { th scope="col" { "Reached" } }
                        @for field in &questions { th scope="col" title=(field.label) { span class="clamp" { (field.label) } } }
                    } }
                    tbody {
                        @for response in responses {
                            @let answers = answers(response);
                            @let when = layout::moment(response.submitted_at.as_ref(), true, true);
                            @let href = format!("{base}/{}", segment(&response.id));
                            tr {
                                td class="pick" {
                                    input type="checkbox" name="id" value=(response.id) id={"pick-" (response.id)};
                                    label for={"pick-" (response.id)} class="visually-hidden" { "Choose the response of " (when) }
                                }
                                td class="nowrap" { a href=(href) { (when) } }
                                @if unfinished { td { (answer::page_title(&form.fields, response.last_page.max(1))) } }
                                @for field in &questions {
                                    td { (answer::show(field, answers.get(&field.id).unwrap_or(&Value::Null), &href, Some(CELL_CHARS))) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn pager(previous: Option<&str>, newest: Option<&str>, next: Option<&str>) -> Markup {
    html! {
        @if previous.is_some() || next.is_some() {
            nav class="pager" aria-label="Pages" {
                @if let Some(href) = newest { a href=(href) { "Newest" } }
                @if let Some(href) = previous { a href=(href) rel="prev" { "Previous" } }
                @if let Some(href) = next { a href=(href) rel="next" { "Next" } }
            }
        }
    }
}

//! A form's responses inbox (`/app/forms/{id}/responses`): a table with a column per
//! field headed by its label, newest first, in keyset pages (the core's cursor mode:
//! never a count or an offset, so a deep page costs what the first one does), a date
//! filter, live refresh, and the CSV/NDJSON exports as downloads (the REST edge's
//! streaming export). The detail of one response, its files and its deletion are in
//! `detail`.

mod detail;

pub(crate) use detail::{delete, file, show};

use super::layout::{self, Section};
use super::owner::Owner;
use crate::http::download;
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{Duration, NaiveDate, TimeZone, Utc};
use forms::pb::{self, convert, list_responses_response::Pagination};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Rows per page unless `per_page` says otherwise (1 to 100).
const PER_PAGE: i32 = 25;
/// Characters of an answer shown in a cell.
const CELL_CHARS: usize = 80;
/// Earlier cursors kept for the Previous link (beyond that, Newest still works).
const TRAIL: usize = 40;
/// Seconds between live refreshes of the table.
const REFRESH_SECONDS: &str = "10";

/// The query of the inbox and of its downloads. Everything is text here and checked
/// by `Filter::parse`, so that bad input gets a page saying what to fix.
#[derive(Deserialize, Default)]
pub(crate) struct InboxQuery {
    /// Search text (the API's `q`).
    q: Option<String>,
    /// One condition on an answer: the field's id, an operator of `CONDITIONS`, a value.
    field: Option<String>,
    op: Option<String>,
    value: Option<String>,
    since: Option<String>,
    until: Option<String>,
    per_page: Option<String>,
    /// The core's opaque keyset cursor of this page (absent: the newest page).
    cursor: Option<String>,
    /// Cursors of the pages before this one, oldest first, `.`-separated (base64url
    /// never holds a dot), for the Previous link.
    back: Option<String>,
    done: Option<String>,
}

/// The operators of the inbox's condition on an answer: its name in the address, the
/// words shown, and the core's operator (what it applies to is the core's rule).
const CONDITIONS: [(&str, &str, pb::AnswerOperator); 6] = [
    ("eq", "is", pb::AnswerOperator::Equals),
    ("contains", "contains", pb::AnswerOperator::Contains),
    ("gte", "is at least", pb::AnswerOperator::AtLeast),
    ("lte", "is at most", pb::AnswerOperator::AtMost),
    ("answered", "is answered", pb::AnswerOperator::Answered),
    (
        "unanswered",
        "is not answered",
        pb::AnswerOperator::NotAnswered,
    ),
];

/// A condition on one field's answer, as asked.
#[derive(Debug, PartialEq, Eq)]
struct Condition {
    field: String,
    op: &'static str,
    value: String,
}

/// The search, the condition on an answer, the date filter and page size, checked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Filter {
    /// Search text, trimmed; the core checks it (and says what to fix).
    search: Option<String>,
    condition: Option<Condition>,
    since: Option<NaiveDate>,
    until: Option<NaiveDate>,
    per_page: i32,
}

fn date(name: &str, value: Option<&str>) -> Result<Option<NaiveDate>, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map(Some)
            .map_err(|_| format!("The {name} date must be a date such as 2026-01-31.")),
    }
}

impl Filter {
    fn parse(q: &InboxQuery) -> Result<Self, String> {
        let since = date("From", q.since.as_deref())?;
        let until = date("To", q.until.as_deref())?;
        if let (Some(since), Some(until)) = (since, until)
            && since > until
        {
            return Err("The From date must not be after the To date.".to_owned());
        }
        let per_page = match q.per_page.as_deref().map(str::trim) {
            None | Some("") => PER_PAGE,
            Some(text) => text
                .parse::<i32>()
                .ok()
                .filter(|n| (1..=100).contains(n))
                .ok_or("Rows per page must be a whole number from 1 to 100.")?,
        };
        let search = q.q.as_deref().map(str::trim).filter(|t| !t.is_empty());
        let condition = match q.field.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            None => None,
            Some(field) => {
                let asked = q.op.as_deref().unwrap_or("eq");
                let (op, _, operator) = CONDITIONS
                    .iter()
                    .find(|(name, _, _)| *name == asked)
                    .ok_or("Choose a condition from the list.")?;
                let value = q.value.as_deref().unwrap_or("").trim().to_owned();
                let takes_value = !matches!(
                    operator,
                    pb::AnswerOperator::Answered | pb::AnswerOperator::NotAnswered
                );
                if takes_value && value.is_empty() {
                    return Err("Give a value to compare the answer with.".to_owned());
                }
                Some(Condition {
                    field: field.to_owned(),
                    op,
                    value: if takes_value { value } else { String::new() },
                })
            }
        };
        Ok(Self {
            search: search.map(str::to_owned),
            condition,
            since,
            until,
            per_page,
        })
    }

    /// The search and the condition as the core's filter.
    fn core_filter(&self) -> Option<pb::ResponseFilter> {
        if self.search.is_none() && self.condition.is_none() {
            return None;
        }
        let answers = self.condition.iter().map(|c| {
            let operator = CONDITIONS
                .iter()
                .find(|(name, _, _)| *name == c.op)
                .map_or(pb::AnswerOperator::Equals, |(_, _, operator)| *operator);
            pb::AnswerFilter {
                field: c.field.clone(),
                operator: operator.into(),
                values: if c.value.is_empty() {
                    Vec::new()
                } else {
                    vec![c.value.clone()]
                },
            }
        });
        Some(pb::ResponseFilter {
            q: self.search.clone().unwrap_or_default(),
            answers: answers.collect(),
            ..Default::default()
        })
    }

    /// Whether anything narrows the list.
    fn narrows(&self) -> bool {
        self.search.is_some()
            || self.condition.is_some()
            || self.since.is_some()
            || self.until.is_some()
    }

    /// The core's bounds (both exclusive): after the last microsecond before `since`,
    /// before midnight after `until`; the dates are UTC days, both included.
    fn bounds(
        &self,
    ) -> (
        Option<prost_types::Timestamp>,
        Option<prost_types::Timestamp>,
    ) {
        let midnight = |d: NaiveDate| Utc.from_utc_datetime(&d.and_time(chrono::NaiveTime::MIN));
        let since = self
            .since
            .map(|d| convert::timestamp(midnight(d) - Duration::microseconds(1)));
        let until = self
            .until
            .and_then(|d| d.succ_opt())
            .map(|d| convert::timestamp(midnight(d)));
        (since, until)
    }

    /// The filter as query pairs (empty values left out), for links.
    fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        if let Some(q) = &self.search {
            pairs.push(("q", q.clone()));
        }
        if let Some(c) = &self.condition {
            pairs.push(("field", c.field.clone()));
            pairs.push(("op", c.op.to_owned()));
            if !c.value.is_empty() {
                pairs.push(("value", c.value.clone()));
            }
        }
        if let Some(d) = self.since {
            pairs.push(("since", d.to_string()));
        }
        if let Some(d) = self.until {
            pairs.push(("until", d.to_string()));
        }
        if self.per_page != PER_PAGE {
            pairs.push(("per_page", self.per_page.to_string()));
        }
        pairs
    }
}

/// `base?pairs` (no `?` when there is nothing to add).
fn with_query(base: &str, pairs: &[(&str, String)]) -> String {
    let query = serde_urlencoded::to_string(pairs).unwrap_or_default();
    if query.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{query}")
    }
}

/// What a path segment escapes: all but the unreserved characters of RFC 3986.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A path segment from an id, escaped (ids come from the address or the core).
pub(super) fn segment(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, SEGMENT).to_string()
}

/// The page that says what to fix in the filter.
fn bad_input(owner: &Owner, form_id: &str, text: &str) -> Response {
    let body = html! {
        h1 { "Check the filter" }
        p class="error" role="alert" { (text) }
        p { a href={"/app/forms/" (segment(form_id)) "/responses"} { "Back to the newest responses" } }
    };
    let mut response = owner.page("Check the filter", Section::Forms, body);
    *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    response
}

/// What `?done=` says after a change; nothing else is ever shown.
fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "deleted" => Some("The response was deleted."),
        _ => None,
    }
}

/// The form, for its title and field labels.
pub(super) async fn form_of(owner: &Owner, form_id: &str) -> Result<pb::Form, Response> {
    let reply = owner
        .state
        .forms()
        .get_form(owner.request(pb::GetFormRequest {
            id: form_id.to_owned(),
        }))
        .await
        .map_err(|status| owner.failure(&status))?;
    reply
        .into_inner()
        .form
        .ok_or_else(|| owner.failure(&tonic::Status::not_found("form")))
}

/// An answer as short text: files by name, lists joined, other values as JSON.
pub(super) fn answer_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Object(file) if file.contains_key("file_id") => file
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("file")
            .to_owned(),
        Value::Array(items) => items.iter().map(answer_text).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// At most `CELL_CHARS` characters, with an ellipsis when cut.
fn truncate(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(CELL_CHARS).collect();
    if chars.next().is_some() {
        format!("{}…", head.trim_end())
    } else {
        head
    }
}

/// A submission time with seconds: `2026-11-24 09:30:12 UTC`.
pub(super) fn at_seconds(ts: Option<&prost_types::Timestamp>) -> String {
    ts.and_then(convert::datetime).map_or_else(
        || "—".to_owned(),
        |at| at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
    )
}

/// The answers of a response, keyed by field id.
pub(super) fn answers(response: &pb::FormResponse) -> Map<String, Value> {
    response
        .answers
        .as_ref()
        .map(convert::struct_to_object)
        .unwrap_or_default()
}

/// `GET /app/forms/{id}/responses`
pub(crate) async fn inbox(
    owner: Owner,
    Path(form_id): Path<String>,
    Query(q): Query<InboxQuery>,
) -> Response {
    let filter = match Filter::parse(&q) {
        Ok(filter) => filter,
        Err(text) => return bad_input(&owner, &form_id, &text),
    };
    let form = match form_of(&owner, &form_id).await {
        Ok(form) => form,
        Err(page) => return page,
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
            status: pb::ResponseStatus::Unspecified.into(),
            filter: filter.core_filter(),
        }))
        .await;
    let listed = match listed {
        Ok(reply) => reply.into_inner(),
        Err(status)
            if crate::http::error::reason_of(&status) == Some(pb::ErrorReason::ValidationError) =>
        {
            // A cursor the core refuses, or a condition it can not apply (a value the
            // field can not have): say which.
            let text = match &cursor {
                Some(_) => "This page's position in the list is not valid (the address was changed?). Start again from the newest responses.".to_owned(),
                None => format!("This filter can not be applied: {}.", status.message()),
            };
            return bad_input(&owner, &form.id, &text);
        }
        Err(status) => return owner.failure(&status),
    };
    let next_cursor = match listed.pagination {
        Some(Pagination::Cursor(c)) => c.next_cursor,
        _ => None,
    };
    let base = format!("/app/forms/{}/responses", segment(&form.id));
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
    let fields = &form.fields;
    let body = html! {
        nav class="crumbs" aria-label="Breadcrumb" {
            a href="/app/forms" { "Forms" } " / "
            a href={"/app/forms/" (segment(&form.id))} { (form.title) } " / "
            span aria-current="page" { "Responses" }
        }
        h1 { "Responses" span class="visually-hidden" { " to " (form.title) } }
        (layout::notice(done_text(q.done.as_deref())))
        form method="get" action=(base) class="row inbox-filter" role="search" aria-label="Search and filter by date" {
            div {
                label for="q" { "Search answers" }
                input id="q" name="q" type="search" maxlength="200" value=[filter.search.as_deref()];
            }
            div {
                label for="field" { "Answer to" }
                select id="field" name="field" {
                    option value="" { "(any question)" }
                    @for f in fields.iter().filter(|f| f.r#type != "page_break") {
                        option value=(f.id) selected[filter.condition.as_ref().is_some_and(|c| c.field == f.id)] { (f.label) }
                    }
                }
            }
            div {
                label for="op" { "Condition" }
                select id="op" name="op" {
                    @for (name, words, _) in CONDITIONS {
                        option value=(name) selected[filter.condition.as_ref().is_some_and(|c| c.op == name)] { (words) }
                    }
                }
            }
            div {
                label for="value" { "Value" }
                input id="value" name="value" type="text" maxlength="200" value=[filter.condition.as_ref().map(|c| c.value.as_str())];
            }
            div {
                label for="since" { "From (UTC)" }
                input id="since" name="since" type="date" value=[filter.since.map(|d| d.to_string())];
            }
            div {
                label for="until" { "To (UTC, included)" }
                input id="until" name="until" type="date" value=[filter.until.map(|d| d.to_string())];
            }
            @if filter.per_page != PER_PAGE {
                input type="hidden" name="per_page" value=(filter.per_page);
            }
            div { button type="submit" class="secondary" { "Filter" } }
            @if filter.narrows() {
                div { a href=(base) { "Clear" } }
            }
        }
        p class="row inbox-actions" {
            a href=(here) { "Refresh" }
            a href=(download("csv")) download { "Download CSV" }
            a href=(download("ndjson")) download { "Download NDJSON" }
        }
        div id="inbox" data-refresh=(here) data-every=(REFRESH_SECONDS) {
            @if listed.responses.is_empty() {
                p class="muted" {
                    @if cursor.is_some() { "No more responses." }
                    @else if filter.search.is_some() || filter.condition.is_some() { "No response matches this search." }
                    @else if filter.narrows() { "No response in these dates." }
                    @else { "No responses yet. They appear here as they arrive." }
                }
            } @else {
                div class="table-wrap" tabindex="0" role="region" aria-label="Responses, newest first" {
                    table {
                        caption class="visually-hidden" { "Responses to " (form.title) ", newest first" }
                        thead { tr {
                            th scope="col" { "Submitted" }
                            @for field in fields { th scope="col" { (field.label) } }
                        } }
                        tbody {
                            @for response in &listed.responses {
                                @let answers = answers(response);
                                tr {
                                    td class="nowrap" {
                                        a href={(base) "/" (segment(&response.id))} {
                                            (at_seconds(response.submitted_at.as_ref()))
                                        }
                                    }
                                    @for field in fields {
                                        td { (truncate(&answers.get(&field.id).map(answer_text).unwrap_or_default())) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            (pager(previous.as_deref(), cursor.is_some().then_some(newest.as_str()), next.as_deref()))
        }
    };
    owner.page(&format!("Responses · {}", form.title), Section::Forms, body)
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

/// `GET /app/forms/{id}/responses/export.csv`
pub(crate) async fn export_csv(
    owner: Owner,
    path: Path<String>,
    query: Query<InboxQuery>,
) -> Response {
    export(owner, path, query, pb::ExportFormat::Csv).await
}

/// `GET /app/forms/{id}/responses/export.ndjson`
pub(crate) async fn export_ndjson(
    owner: Owner,
    path: Path<String>,
    query: Query<InboxQuery>,
) -> Response {
    export(owner, path, query, pb::ExportFormat::Ndjson).await
}

/// The core's export with the inbox's date filter, streamed as an attachment.
async fn export(
    owner: Owner,
    Path(form_id): Path<String>,
    Query(q): Query<InboxQuery>,
    format: pb::ExportFormat,
) -> Response {
    let filter = match Filter::parse(&q) {
        Ok(filter) => filter,
        Err(text) => return bad_input(&owner, &form_id, &text),
    };
    let (since, until) = filter.bounds();
    let request = pb::ExportResponsesRequest {
        form_id: form_id.clone(),
        format: format.into(),
        since,
        until,
        status: pb::ResponseStatus::Unspecified.into(),
        filter: filter.core_filter(),
    };
    match owner
        .state
        .responses()
        .export_responses(owner.request(request))
        .await
    {
        Ok(reply) => download::export(reply, &form_id, format).into_response(),
        Err(status) => owner.failure(&status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(since: &str, until: &str, per_page: &str) -> Result<Filter, String> {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        Filter::parse(&InboxQuery {
            since: some(since),
            until: some(until),
            per_page: some(per_page),
            ..Default::default()
        })
    }

    #[test]
    fn dates_are_whole_utc_days_both_included() {
        let filter = parse("2026-01-31", "2026-02-01", "").expect("valid");
        let (since, until) = filter.bounds();
        let since = since.expect("since");
        let until = until.expect("until");
        // 2026-01-31T00:00:00Z is 1769817600; the core's bounds are exclusive.
        assert_eq!((since.seconds, since.nanos), (1_769_817_599, 999_999_000));
        assert_eq!(
            (until.seconds, until.nanos),
            (1_769_817_600 + 2 * 86_400, 0)
        );
        assert_eq!(filter.per_page, PER_PAGE);
        assert_eq!(parse("", "", "").map(|f| f.bounds()), Ok((None, None)));
    }

    #[test]
    fn bad_input_says_what_to_fix() {
        assert!(parse("yesterday", "", "").is_err_and(|e| e.contains("From")));
        assert!(parse("", "2026-13-01", "").is_err_and(|e| e.contains("To")));
        assert!(parse("2026-02-02", "2026-02-01", "").is_err_and(|e| e.contains("after")));
        for bad in ["0", "101", "ten", "-1"] {
            assert!(parse("", "", bad).is_err(), "{bad}");
        }
        assert_eq!(parse("", "", "100").map(|f| f.per_page), Ok(100));
    }

    #[test]
    fn answers_are_short_text() {
        let file = serde_json::json!({"file_id": "x", "name": "cv.pdf", "size": 3});
        assert_eq!(answer_text(&file), "cv.pdf");
        assert_eq!(answer_text(&serde_json::json!(4.5)), "4.5");
        assert_eq!(answer_text(&Value::Null), "");
        let long = "é".repeat(100);
        assert_eq!(truncate(&long).chars().count(), CELL_CHARS + 1);
        assert_eq!(truncate("short"), "short");
    }
}

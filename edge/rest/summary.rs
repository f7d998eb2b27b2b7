//! `GET /forms/{form_id}/summary`: the core's GetFormSummary as JSON. Each message of
//! the reply has its shape here, member for member (a field's kind-specific figures are
//! one member named after the kind, as the message's oneof).

use crate::http::call::{Call, Success};
use crate::http::params::{FormIdOfChild, PathParams};
use crate::http::state::AppState;
use crate::http::timestamp;
use crate::rest::query::{self, Query};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, field_summary::Detail};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The query of the summary.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct SummaryQuery {
    /// Only responses submitted (partial ones: first saved) after this instant
    /// (exclusive, RFC 3339).
    #[serde(default, deserialize_with = "query::timestamp")]
    #[param(value_type = Option<String>, format = DateTime)]
    since: Option<prost_types::Timestamp>,
    /// Only responses submitted (partial ones: first saved) before this instant
    /// (exclusive, RFC 3339).
    #[serde(default, deserialize_with = "query::timestamp")]
    #[param(value_type = Option<String>, format = DateTime)]
    until: Option<prost_types::Timestamp>,
}

fn summary_request(
    form_id: String,
    query: SummaryQuery,
    filter: super::filter::FilterQuery,
) -> pb::GetFormSummaryRequest {
    pb::GetFormSummaryRequest {
        form_id,
        since: query.since,
        until: query.until,
        filter: filter.into_pb(),
    }
}

/// `data` of the summary's reply.
#[derive(Serialize, ToSchema)]
pub(crate) struct SummaryReply {
    summary: Option<FormSummary>,
}

/// The figures of a form's responses in a window, exact at read time. Shares,
/// completion time and the per-field figures are of completed responses; counts and
/// drop-off also count partial ones.
#[derive(Serialize, ToSchema)]
pub(crate) struct FormSummary {
    counts: SummaryCounts,
    completion_time: CompletionTime,
    /// Completed responses per device type (`unknown` for none), most first.
    device_types: Vec<ValueCount>,
    /// Completed responses per browser family, most first.
    browsers: Vec<ValueCount>,
    /// Completed responses per OS family, most first.
    operating_systems: Vec<ValueCount>,
    /// Completed responses per language answered in (`unknown` for none: API-created
    /// responses and forms in one language), most first; left out when no response
    /// recorded a language.
    #[serde(skip_serializing_if = "no_language")]
    languages: Vec<ValueCount>,
    /// One per field in the form's order (page breaks are left out).
    fields: Vec<FieldSummary>,
    /// How many reached each page; empty for a form without page breaks.
    pages: Vec<PageReach>,
}

/// How many responses, in all and over time.
#[derive(Serialize, ToSchema)]
pub(crate) struct SummaryCounts {
    completed: i64,
    /// Unfinished multi-page responses.
    partial: i64,
    /// completed / (completed + partial); null without responses.
    #[schema(required = true)]
    completion_rate: Option<f64>,
    /// Per UTC date, oldest first; dates without responses are left out.
    per_day: Vec<DayCount>,
    /// Per UTC hour, oldest first; only when `since` and `until` are both given and at
    /// most 48 hours apart (empty otherwise).
    per_hour: Vec<HourCount>,
}

/// Responses of one UTC date.
#[derive(Serialize, ToSchema)]
pub(crate) struct DayCount {
    /// YYYY-MM-DD.
    #[schema(format = Date)]
    date: String,
    completed: i64,
    partial: i64,
}

/// Responses of one UTC hour.
#[derive(Serialize, ToSchema)]
pub(crate) struct HourCount {
    /// The start of the hour.
    #[schema(value_type = String, format = DateTime)]
    hour: Option<String>,
    completed: i64,
    partial: i64,
}

/// Completion time of completed responses, in seconds: continuous percentiles
/// (interpolated, as PostgreSQL's `percentile_cont`).
#[derive(Serialize, ToSchema)]
pub(crate) struct CompletionTime {
    /// Responses with a completion time (API-created ones have none).
    count: i64,
    #[schema(required = true)]
    median_seconds: Option<f64>,
    #[schema(required = true)]
    p90_seconds: Option<f64>,
}

/// How many responses have one value.
#[derive(Serialize, ToSchema)]
pub(crate) struct ValueCount {
    value: String,
    count: i64,
}

/// The figures of one field over completed responses. Besides `answered`, one member
/// named after the field's kind: `choice` (single_choice, dropdown, multiple_choice),
/// `scale` (rating, scale), `number`, `date`, `checkbox` or `text` (the text kinds);
/// none for file_upload.
#[derive(Serialize, ToSchema)]
pub(crate) struct FieldSummary {
    #[schema(format = Uuid)]
    field_id: String,
    /// The field's type.
    r#type: String,
    label: String,
    /// Responses that answer it.
    answered: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    choice: Option<ChoiceSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<ScaleSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    number: Option<NumberSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<DateSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checkbox: Option<CheckboxSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<TextSummary>,
}

/// Counts of a choice field; a multiple_choice answer counts for each option it ticks.
#[derive(Serialize, ToSchema)]
pub(crate) struct ChoiceSummary {
    /// Every option, in the field's order, even when never chosen.
    options: Vec<OptionCount>,
    /// Answers with an "other" text.
    other: i64,
}

/// How many answers chose one option.
#[derive(Serialize, ToSchema)]
pub(crate) struct OptionCount {
    option_id: String,
    label: String,
    count: i64,
}

/// Figures of a rating or a scale.
#[derive(Serialize, ToSchema)]
pub(crate) struct ScaleSummary {
    /// Null when none answered.
    #[schema(required = true)]
    average: Option<f64>,
    /// Every value of the field's range, lowest first.
    distribution: Vec<ScaleCount>,
    /// A 0–10 scale with answers: percent of 9–10 minus percent of 0–6, to one
    /// decimal; null otherwise.
    #[schema(required = true)]
    nps: Option<f64>,
}

/// How many answers gave one value.
#[derive(Serialize, ToSchema)]
pub(crate) struct ScaleCount {
    value: i64,
    count: i64,
}

/// Figures of a number field (null when none answered).
#[derive(Serialize, ToSchema)]
pub(crate) struct NumberSummary {
    #[schema(required = true)]
    min: Option<f64>,
    #[schema(required = true)]
    max: Option<f64>,
    #[schema(required = true)]
    average: Option<f64>,
}

/// Figures of a date field (null when none answered).
#[derive(Serialize, ToSchema)]
pub(crate) struct DateSummary {
    #[schema(required = true, format = Date)]
    earliest: Option<String>,
    #[schema(required = true, format = Date)]
    latest: Option<String>,
}

/// Figures of a checkbox.
#[derive(Serialize, ToSchema)]
pub(crate) struct CheckboxSummary {
    /// Answers that tick it (`answered` also counts unticked ones).
    ticked: i64,
}

/// Figures of a text field.
#[derive(Serialize, ToSchema)]
pub(crate) struct TextSummary {
    /// The newest answers (at most 5), newest first.
    newest: Vec<TextAnswer>,
}

/// One text answer.
#[derive(Serialize, ToSchema)]
pub(crate) struct TextAnswer {
    #[schema(format = Uuid)]
    response_id: String,
    #[schema(value_type = String, format = DateTime)]
    submitted_at: Option<String>,
    value: String,
}

/// How many reached one page.
#[derive(Serialize, ToSchema)]
pub(crate) struct PageReach {
    /// From 1.
    page: i32,
    /// The page break's label (empty for a first page without one).
    title: String,
    /// Completed responses whose answers showed the page, plus partial responses at
    /// this page or a later one.
    reached: i64,
}

fn value_counts(list: Vec<pb::ValueCount>) -> Vec<ValueCount> {
    list.into_iter()
        .map(|v| ValueCount {
            value: v.value,
            count: v.count,
        })
        .collect()
}

impl From<pb::FieldSummary> for FieldSummary {
    fn from(f: pb::FieldSummary) -> Self {
        let mut out = Self {
            field_id: f.field_id,
            r#type: f.r#type,
            label: f.label,
            answered: f.answered,
            choice: None,
            scale: None,
            number: None,
            date: None,
            checkbox: None,
            text: None,
        };
        match f.detail {
            Some(Detail::Choice(c)) => {
                out.choice = Some(ChoiceSummary {
                    options: c
                        .options
                        .into_iter()
                        .map(|o| OptionCount {
                            option_id: o.option_id,
                            label: o.label,
                            count: o.count,
                        })
                        .collect(),
                    other: c.other,
                });
            }
            Some(Detail::Scale(s)) => {
                out.scale = Some(ScaleSummary {
                    average: s.average,
                    distribution: s
                        .distribution
                        .into_iter()
                        .map(|d| ScaleCount {
                            value: d.value,
                            count: d.count,
                        })
                        .collect(),
                    nps: s.nps,
                });
            }
            Some(Detail::Number(n)) => {
                out.number = Some(NumberSummary {
                    min: n.min,
                    max: n.max,
                    average: n.average,
                });
            }
            Some(Detail::Date(d)) => {
                out.date = Some(DateSummary {
                    earliest: d.earliest,
                    latest: d.latest,
                });
            }
            Some(Detail::Checkbox(c)) => out.checkbox = Some(CheckboxSummary { ticked: c.ticked }),
            Some(Detail::Text(t)) => {
                out.text = Some(TextSummary {
                    newest: t
                        .newest
                        .into_iter()
                        .map(|a| TextAnswer {
                            response_id: a.response_id,
                            submitted_at: timestamp(a.submitted_at.as_ref()),
                            value: a.value,
                        })
                        .collect(),
                });
            }
            None => {}
        }
        out
    }
}

impl From<pb::FormSummary> for FormSummary {
    fn from(s: pb::FormSummary) -> Self {
        let counts = s.counts.unwrap_or_default();
        let time = s.completion_time.unwrap_or_default();
        Self {
            counts: SummaryCounts {
                completed: counts.completed,
                partial: counts.partial,
                completion_rate: counts.completion_rate,
                per_day: counts
                    .per_day
                    .into_iter()
                    .map(|d| DayCount {
                        date: d.date,
                        completed: d.completed,
                        partial: d.partial,
                    })
                    .collect(),
                per_hour: counts
                    .per_hour
                    .into_iter()
                    .map(|h| HourCount {
                        hour: timestamp(h.hour.as_ref()),
                        completed: h.completed,
                        partial: h.partial,
                    })
                    .collect(),
            },
            completion_time: CompletionTime {
                count: time.count,
                median_seconds: time.median_seconds,
                p90_seconds: time.p90_seconds,
            },
            device_types: value_counts(s.device_types),
            browsers: value_counts(s.browsers),
            operating_systems: value_counts(s.operating_systems),
            languages: value_counts(s.languages),
            fields: s.fields.into_iter().map(FieldSummary::from).collect(),
            pages: s
                .pages
                .into_iter()
                .map(|p| PageReach {
                    page: p.page,
                    title: p.title,
                    reached: p.reached,
                })
                .collect(),
        }
    }
}

/// Summary of a form
#[utoipa::path(get, path = "/forms/{form_id}/summary", operation_id = "getFormSummary",
    tag = "responses",
    description = "Scope: read. Figures of the form's responses submitted in the window: \
        counts (completed, partial, per day, per hour for windows of 48 hours or less), \
        completion time, device/browser/OS shares, per-field figures and drop-off per \
        page. Computed from the responses when asked: exact at read time.",
    params(FormIdOfChild, SummaryQuery, super::filter::FilterQuery),
    responses((status = 200, description = "The summary", body = Success<SummaryReply>)))]
pub(crate) async fn get(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormIdOfChild(form_id)): PathParams<FormIdOfChild>,
    Query(query): Query<SummaryQuery>,
    Query(filter): Query<super::filter::FilterQuery>,
) -> Response {
    let request = call.request(summary_request(form_id, query, filter));
    let result = state.responses().get_form_summary(request).await;
    call.reply(result, StatusCode::OK, |r| SummaryReply {
        summary: r.summary.map(FormSummary::from),
    })
}

/// Whether no counted response recorded its language (the summary then leaves the
/// languages out, as a form in one language shows none).
fn no_language(counts: &[ValueCount]) -> bool {
    counts.iter().all(|c| c.value == "unknown")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::query::parse;

    fn summary(query: &str) -> Result<pb::GetFormSummaryRequest, String> {
        parse::<SummaryQuery>(query).map(|q| summary_request("f".to_owned(), q, Default::default()))
    }

    #[test]
    fn since_and_until_bound_the_summary() {
        let request =
            summary("since=2026-01-01T00:00:10Z&until=2026-01-01T00:00:20%2B00:00").expect("valid");
        let at = |seconds| Some(prost_types::Timestamp { seconds, nanos: 0 });
        assert_eq!(request.since, at(1_767_225_610));
        assert_eq!(request.until, at(1_767_225_620));
        let request = summary("").expect("empty");
        assert_eq!((request.since, request.until), (None, None));
    }

    #[test]
    fn a_bad_bound_is_refused_by_name() {
        crate::rest::query::assert_refused::<SummaryQuery>(&[
            (
                "since=yesterday",
                r#"since must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got "yesterday""#,
            ),
            (
                "until=2026-13-01T00:00:00Z",
                r#"until must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got "2026-13-01T00:00:00Z""#,
            ),
        ]);
    }
}

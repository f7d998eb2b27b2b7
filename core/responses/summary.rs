//! The summary of a form: exact figures of its responses in a window, computed at read
//! time (nothing is pre-aggregated, so nothing lags). SQL aggregates do the counting
//! (`store::summary`); this module puts their rows in the form's order and adds what
//! SQL does not know: option labels, every value of a scale's range, the NPS, and the
//! pages each response was shown (drop-off).
//!
//! Which responses count: counts and drop-off take completed and partial ones;
//! completion time, device/browser/OS shares and the per-field figures take completed
//! ones only (a partial one's answers are not final).

use super::store::{Window, summary as sql};
use crate::error::CoreError;
use crate::forms::logic;
use crate::forms::{Field, FieldKind};
use crate::pb::{self, convert, field_summary::Detail};
use chrono::{DateTime, TimeDelta, Utc};
use sqlx::PgConnection;
use std::collections::HashMap;
use tokio_stream::StreamExt;
use uuid::Uuid;

/// Newest text answers shown per text field.
pub(crate) const NEWEST_TEXTS: i64 = 5;
/// Windows up to this long are also counted per hour.
pub(crate) const HOURLY_WINDOW: TimeDelta = TimeDelta::hours(48);

/// Whether a window given by the caller is short enough to count per hour: both ends
/// given, at most `HOURLY_WINDOW` apart.
pub(crate) fn hourly(since: Option<DateTime<Utc>>, until: Option<DateTime<Utc>>) -> bool {
    matches!((since, until), (Some(since), Some(until)) if until - since <= HOURLY_WINDOW)
}

/// The summary of `fields`' form `form_id` over `w`, read in the caller's snapshot.
pub(crate) async fn summarize(
    db: &mut PgConnection,
    form_id: Uuid,
    fields: &[Field],
    w: Window,
    per_hour: bool,
) -> Result<pb::FormSummary, CoreError> {
    let counts = counts(db, form_id, w, per_hour).await?;
    let timing = sql::timing(db, form_id, w).await?;
    let completion_time = pb::CompletionTime {
        count: timing.timed,
        median_seconds: timing.median,
        p90_seconds: timing.p90,
    };
    let (device_types, browsers, operating_systems) =
        split_shares(sql::shares(db, form_id, w).await?);
    let fields_out = field_summaries(db, form_id, fields, w).await?;
    let pages = drop_off(db, form_id, fields, w).await?;
    Ok(pb::FormSummary {
        counts: Some(counts),
        completion_time: Some(completion_time),
        device_types,
        browsers,
        operating_systems,
        fields: fields_out,
        pages,
    })
}

async fn counts(
    db: &mut PgConnection,
    form_id: Uuid,
    w: Window,
    per_hour: bool,
) -> Result<pb::SummaryCounts, CoreError> {
    let days = sql::per_day(db, form_id, w).await?;
    let completed = days.iter().map(|d| d.completed).sum::<i64>();
    let partial = days.iter().map(|d| d.partial).sum::<i64>();
    let hours = if per_hour {
        sql::per_hour(db, form_id, w).await?
    } else {
        Vec::new()
    };
    Ok(pb::SummaryCounts {
        completed,
        partial,
        completion_rate: completion_rate(completed, partial),
        per_day: days
            .into_iter()
            .map(|d| pb::DayCount {
                date: d.day.format("%Y-%m-%d").to_string(),
                completed: d.completed,
                partial: d.partial,
            })
            .collect(),
        per_hour: hours
            .into_iter()
            .map(|h| pb::HourCount {
                hour: Some(convert::timestamp(h.hour)),
                completed: h.completed,
                partial: h.partial,
            })
            .collect(),
    })
}

/// completed / (completed + partial); none without responses.
fn completion_rate(completed: i64, partial: i64) -> Option<f64> {
    let all = completed + partial;
    (all > 0).then(|| completed as f64 / all as f64)
}

/// The share rows per dimension, each most first, then by value.
fn split_shares(
    rows: Vec<sql::ShareRow>,
) -> (
    Vec<pb::ValueCount>,
    Vec<pb::ValueCount>,
    Vec<pb::ValueCount>,
) {
    let (mut devices, mut browsers, mut systems) = (Vec::new(), Vec::new(), Vec::new());
    for row in rows {
        let count = pb::ValueCount {
            value: row.value,
            count: row.count,
        };
        match row.dimension.as_str() {
            "device_type" => devices.push(count),
            "browser" => browsers.push(count),
            _ => systems.push(count),
        }
    }
    for list in [&mut devices, &mut browsers, &mut systems] {
        list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    }
    (devices, browsers, systems)
}

fn ids_of(fields: &[Field], keep: impl Fn(FieldKind) -> bool) -> Vec<String> {
    fields
        .iter()
        .filter(|f| keep(f.kind))
        .map(|f| f.id.to_string())
        .collect()
}

async fn field_summaries(
    db: &mut PgConnection,
    form_id: Uuid,
    fields: &[Field],
    w: Window,
) -> Result<Vec<pb::FieldSummary>, CoreError> {
    let numbers = ids_of(fields, |k| k == FieldKind::Number);
    let dates = ids_of(fields, |k| k == FieldKind::Date);
    let counted = ids_of(fields, |k| {
        k.has_options() || matches!(k, FieldKind::Rating | FieldKind::Scale)
    });
    let texts = ids_of(fields, FieldKind::is_text);
    let mut stats: HashMap<String, sql::FieldRow> = sql::fields(db, form_id, w, &numbers, &dates)
        .await?
        .into_iter()
        .map(|row| (row.field.clone(), row))
        .collect();
    let mut values: HashMap<String, Vec<(Option<String>, i64)>> = HashMap::new();
    if !counted.is_empty() {
        for row in sql::values(db, form_id, w, &counted).await? {
            values
                .entry(row.field)
                .or_default()
                .push((row.value, row.count));
        }
    }
    let mut newest: HashMap<String, Vec<pb::TextAnswer>> = HashMap::new();
    if !texts.is_empty() {
        for row in sql::newest_texts(db, form_id, w, &texts, NEWEST_TEXTS).await? {
            newest.entry(row.field).or_default().push(pb::TextAnswer {
                response_id: row.id.to_string(),
                submitted_at: Some(convert::timestamp(row.submitted_at)),
                value: row.value,
            });
        }
    }
    let mut out = Vec::new();
    for field in fields.iter().filter(|f| f.kind != FieldKind::PageBreak) {
        let id = field.id.to_string();
        let row = stats.remove(&id);
        let answered = row.as_ref().map_or(0, |r| r.answered);
        let counts = values.remove(&id).unwrap_or_default();
        let detail = match field.kind {
            k if k.has_options() => Some(Detail::Choice(choice(field, &counts))),
            FieldKind::Rating | FieldKind::Scale => Some(Detail::Scale(scale(field, &counts))),
            FieldKind::Number => Some(Detail::Number(pb::NumberSummary {
                min: row.as_ref().and_then(|r| r.min_number),
                max: row.as_ref().and_then(|r| r.max_number),
                average: row.as_ref().and_then(|r| r.avg_number),
            })),
            FieldKind::Date => Some(Detail::Date(pb::DateSummary {
                earliest: row.as_ref().and_then(|r| r.earliest.clone()),
                latest: row.as_ref().and_then(|r| r.latest.clone()),
            })),
            FieldKind::Checkbox => Some(Detail::Checkbox(pb::CheckboxSummary {
                ticked: row.as_ref().map_or(0, |r| r.ticked),
            })),
            k if k.is_text() => Some(Detail::Text(pb::TextSummary {
                newest: newest.remove(&id).unwrap_or_default(),
            })),
            _ => None,
        };
        out.push(pb::FieldSummary {
            field_id: id,
            r#type: field.kind.as_str().to_owned(),
            label: field.label.clone(),
            answered,
            detail,
        });
    }
    Ok(out)
}

/// Every option in the field's order with its count, and the "other" answers. Ids no
/// longer among the options (an option removed since) are left out.
fn choice(field: &Field, counts: &[(Option<String>, i64)]) -> pb::ChoiceSummary {
    let count_of = |id: &str| {
        counts
            .iter()
            .filter(|(value, _)| value.as_deref() == Some(id))
            .map(|(_, n)| n)
            .sum()
    };
    pb::ChoiceSummary {
        options: field
            .options
            .iter()
            .map(|o| pb::OptionCount {
                option_id: o.id.clone(),
                label: o.label.clone(),
                count: count_of(&o.id),
            })
            .collect(),
        other: counts
            .iter()
            .filter(|(value, _)| value.is_none())
            .map(|(_, n)| n)
            .sum(),
    }
}

/// Average and distribution over the field's range (values outside it, left by a
/// change of range, count in the average but have no bar), and the NPS of a 0..10
/// scale, rounded to one decimal.
fn scale(field: &Field, counts: &[(Option<String>, i64)]) -> pb::ScaleSummary {
    let given: Vec<(i64, i64)> = counts
        .iter()
        .filter_map(|(value, n)| Some((value.as_deref()?.parse::<i64>().ok()?, *n)))
        .collect();
    let answered: i64 = given.iter().map(|(_, n)| n).sum();
    let sum: i64 = given.iter().map(|(v, n)| v * n).sum();
    let (lo, hi) = field.int_bounds();
    let count_where = |keep: &dyn Fn(i64) -> bool| -> i64 {
        given.iter().filter(|(v, _)| keep(*v)).map(|(_, n)| n).sum()
    };
    let nps = (field.kind == FieldKind::Scale && (lo, hi) == (0, 10) && answered > 0).then(|| {
        let promoters = count_where(&|v| v >= 9);
        let detractors = count_where(&|v| v <= 6);
        nps(promoters, detractors, answered)
    });
    pb::ScaleSummary {
        average: (answered > 0).then(|| sum as f64 / answered as f64),
        distribution: (lo..=hi)
            .map(|value| pb::ScaleCount {
                value,
                count: count_where(&|v| v == value),
            })
            .collect(),
        nps,
    }
}

/// Promoters minus detractors, as a percentage of `answered`, to one decimal.
fn nps(promoters: i64, detractors: i64, answered: i64) -> f64 {
    let percent = 100.0 * (promoters - detractors) as f64 / answered as f64;
    (percent * 10.0).round() / 10.0
}

/// How many reached each page, for a form with page breaks. A completed response
/// reached every page its answers showed (`logic::shown_pages`); a partial one every
/// page up to the one it is at.
///
/// Cost: the completed responses of the window are streamed here and each one's pages
/// are worked out from its answers, O(responses × fields) in time and one row in
/// memory at a time; pre-computing each response's pages at write time would make this
/// one aggregate.
async fn drop_off(
    db: &mut PgConnection,
    form_id: Uuid,
    fields: &[Field],
    w: Window,
) -> Result<Vec<pb::PageReach>, CoreError> {
    if !fields.iter().any(|f| f.kind == FieldKind::PageBreak) {
        return Ok(Vec::new());
    }
    let page_of = logic::pages(fields);
    let last = page_of.last().copied().unwrap_or(1);
    let mut titles = vec![String::new(); last];
    for (field, page) in fields.iter().zip(&page_of) {
        if field.kind == FieldKind::PageBreak
            && let Some(title) = titles.get_mut(page - 1)
        {
            title.clone_from(&field.label);
        }
    }
    let mut reached = vec![0_i64; last];
    for (page, count) in sql::partial_pages(db, form_id, w).await? {
        let at = usize::try_from(page).unwrap_or(0).min(last);
        for n in reached.iter_mut().take(at) {
            *n += count;
        }
    }
    let mut rows = sql::completed_answers(db, form_id, w);
    while let Some(answers) = rows.next().await {
        for (page, shown) in logic::shown_pages(fields, &answers?) {
            if shown && let Some(n) = reached.get_mut(page - 1) {
                *n += 1;
            }
        }
    }
    Ok(reached
        .into_iter()
        .zip(titles)
        .enumerate()
        .map(|(i, (reached, title))| pb::PageReach {
            page: i32::try_from(i + 1).unwrap_or(i32::MAX),
            title,
            reached,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nps_is_a_percentage_to_one_decimal() {
        assert_eq!(nps(2, 1, 3), 33.3);
        assert_eq!(nps(1, 2, 3), -33.3);
        assert_eq!(nps(0, 0, 5), 0.0);
        assert_eq!(nps(3, 0, 3), 100.0);
    }

    #[test]
    fn hourly_needs_both_ends_at_most_two_days_apart() {
        let at = |h: i64| DateTime::from_timestamp(h * 3600, 0);
        assert!(hourly(at(0), at(48)));
        assert!(!hourly(at(0), at(49)));
        assert!(!hourly(at(0), None));
        assert!(!hourly(None, at(1)));
    }

    #[test]
    fn a_scale_has_every_value_of_its_range() {
        let field = Field {
            kind: FieldKind::Scale,
            ..Default::default()
        };
        let summary = scale(&field, &[(Some("10".into()), 2), (Some("3".into()), 1)]);
        assert_eq!(summary.distribution.len(), 11);
        assert_eq!(summary.average, Some(23.0 / 3.0));
        assert_eq!(summary.nps, Some(33.3));
        let empty = scale(&field, &[]);
        assert_eq!((empty.average, empty.nps), (None, None));
    }

    #[test]
    fn no_responses_have_no_completion_rate() {
        assert_eq!(completion_rate(0, 0), None);
        assert_eq!(completion_rate(3, 1), Some(0.75));
    }
}

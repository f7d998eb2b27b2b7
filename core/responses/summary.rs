//! The summary of a form: exact figures of its responses in a window, meeting a
//! filter. Completed responses are added up by a tally (`tally`), which the rollup keeps
//! per form (`rollup`): a summary with no window and no filter starts from the stored
//! tally and adds the responses since it; others add up the responses they select.
//! Partial responses, hours and the newest texts are counted by SQL
//! (`store::summary`). This module puts the figures in the form's order and adds what
//! the tally does not know: option labels, every value of a scale's range, the NPS.
//!
//! Which responses count: counts and drop-off take completed and partial ones;
//! completion time, device/browser/OS shares and the per-field figures take completed
//! ones only (a partial one's answers are not final).

use super::filter::Filter;
use super::store::{Selection, Statuses, Window, summary as sql};
use super::tally::{FieldTally, Tally};
use crate::error::CoreError;
use crate::forms::logic;
use crate::forms::{Field, FieldKind};
use crate::pb::{self, convert, field_summary::Detail};
use chrono::{DateTime, TimeDelta, Utc};
use sqlx::PgConnection;
use std::collections::{BTreeMap, HashMap};
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

/// The summary of `fields`' form `form_id` over `w` and `filter`, read in the caller's
/// snapshot.
pub(crate) async fn summarize(
    db: &mut PgConnection,
    form_id: Uuid,
    fields: &[Field],
    filter: &Filter,
    w: Window,
    per_hour: bool,
) -> Result<pb::FormSummary, CoreError> {
    let select = |window, statuses| Selection {
        form_id,
        window,
        statuses,
        filter,
    };
    let tally = completed(db, form_id, fields, filter, w).await?;
    let partials = sql::partial_days_pages(db, &select(w, Statuses::Partial)).await?;
    let hours = if per_hour {
        sql::per_hour(db, &select(w, Statuses::All)).await?
    } else {
        Vec::new()
    };
    let counts = counts(&tally, &partials, hours);
    let (timed, median, p90) = tally.timing();
    let texts = ids_of(fields, FieldKind::is_text);
    let mut newest: HashMap<String, Vec<pb::TextAnswer>> = HashMap::new();
    if !texts.is_empty() {
        let sel = select(w, Statuses::Completed);
        for row in sql::newest_texts(db, &sel, &texts, NEWEST_TEXTS).await? {
            newest.entry(row.field).or_default().push(pb::TextAnswer {
                response_id: row.id.to_string(),
                submitted_at: Some(convert::timestamp(row.submitted_at)),
                value: row.value,
            });
        }
    }
    Ok(pb::FormSummary {
        counts: Some(counts),
        completion_time: Some(pb::CompletionTime {
            count: timed,
            median_seconds: median,
            p90_seconds: p90,
        }),
        device_types: shares(&tally.device_types),
        browsers: shares(&tally.browsers),
        operating_systems: shares(&tally.operating_systems),
        languages: shares(&tally.languages),
        fields: field_summaries(fields, &tally.fields, newest),
        pages: drop_off(fields, &tally, &partials),
    })
}

/// The tally of the completed responses selected: the stored one plus the responses
/// after it when it applies (no window, no filter), else the responses added up here.
async fn completed(
    db: &mut PgConnection,
    form_id: Uuid,
    fields: &[Field],
    filter: &Filter,
    w: Window,
) -> Result<Tally, CoreError> {
    let (mut tally, from) = match filter.is_empty() && w.is_open() {
        true => match sql::stored(&mut *db, form_id).await? {
            Some(stored) => (stored.tally, Window::new(Some(stored.through_at), None)),
            None => (Tally::default(), w),
        },
        false => (Tally::default(), w),
    };
    let sel = Selection {
        form_id,
        window: from,
        statuses: Statuses::Completed,
        filter,
    };
    let paged = logic::has_pages(fields);
    let mut rows = sql::completed_rows(db, &sel, None)?;
    while let Some(row) = rows.next().await {
        tally.add(&row?, fields, paged);
    }
    Ok(tally)
}

fn counts(
    tally: &Tally,
    partials: &[(String, i32, i64)],
    hours: Vec<sql::HourRow>,
) -> pb::SummaryCounts {
    let mut days: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for (day, n) in &tally.per_day {
        days.entry(day).or_default().0 += n;
    }
    for (day, _, n) in partials {
        days.entry(day).or_default().1 += n;
    }
    let partial = partials.iter().map(|(_, _, n)| n).sum::<i64>();
    pb::SummaryCounts {
        completed: tally.completed,
        partial,
        completion_rate: completion_rate(tally.completed, partial),
        per_day: days
            .into_iter()
            .map(|(date, (completed, partial))| pb::DayCount {
                date: date.to_owned(),
                completed,
                partial,
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
    }
}

/// completed / (completed + partial); none without responses.
fn completion_rate(completed: i64, partial: i64) -> Option<f64> {
    let all = completed + partial;
    (all > 0).then(|| completed as f64 / all as f64)
}

/// Counts per value, most first, then by value.
fn shares(counts: &BTreeMap<String, i64>) -> Vec<pb::ValueCount> {
    let mut list: Vec<pb::ValueCount> = counts
        .iter()
        .map(|(value, count)| pb::ValueCount {
            value: value.clone(),
            count: *count,
        })
        .collect();
    list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    list
}

fn ids_of(fields: &[Field], keep: impl Fn(FieldKind) -> bool) -> Vec<String> {
    fields
        .iter()
        .filter(|f| keep(f.kind))
        .map(|f| f.id.to_string())
        .collect()
}

fn field_summaries(
    fields: &[Field],
    tallies: &BTreeMap<String, FieldTally>,
    mut newest: HashMap<String, Vec<pb::TextAnswer>>,
) -> Vec<pb::FieldSummary> {
    let none = FieldTally::default();
    let mut out = Vec::new();
    for field in fields.iter().filter(|f| f.kind != FieldKind::PageBreak) {
        let id = field.id.to_string();
        let t = tallies.get(&id).unwrap_or(&none);
        let detail = match field.kind {
            k if k.has_options() => Some(Detail::Choice(choice(field, t))),
            FieldKind::Rating | FieldKind::Scale => Some(Detail::Scale(scale(field, t))),
            FieldKind::Number => Some(Detail::Number(pb::NumberSummary {
                min: t.numbers.as_ref().map(|n| n.min),
                max: t.numbers.as_ref().map(|n| n.max),
                average: t.numbers.as_ref().map(|n| n.average()),
            })),
            FieldKind::Date => Some(Detail::Date(pb::DateSummary {
                earliest: t.earliest.clone(),
                latest: t.latest.clone(),
            })),
            FieldKind::Checkbox => Some(Detail::Checkbox(pb::CheckboxSummary { ticked: t.ticked })),
            k if k.is_text() => Some(Detail::Text(pb::TextSummary {
                newest: newest.remove(&id).unwrap_or_default(),
            })),
            _ => None,
        };
        out.push(pb::FieldSummary {
            field_id: id,
            r#type: field.kind.as_str().to_owned(),
            label: field.label.clone(),
            answered: t.answered,
            detail,
        });
    }
    out
}

/// Every option in the field's order with its count, and the "other" answers. Ids no
/// longer among the options (an option removed since) are left out.
fn choice(field: &Field, t: &FieldTally) -> pb::ChoiceSummary {
    let count_of = |id: &str| t.values.get(id).copied().unwrap_or(0);
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
        other: t.other,
    }
}

/// Average and distribution over the field's range (values outside it, left by a
/// change of range, count in the average but have no bar), and the NPS of a 0..10
/// scale, rounded to one decimal.
fn scale(field: &Field, t: &FieldTally) -> pb::ScaleSummary {
    let given: Vec<(i64, i64)> = t
        .values
        .iter()
        .filter_map(|(value, n)| Some((value.parse::<i64>().ok()?, *n)))
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
/// reached every page its answers showed (`logic::shown_pages`, counted by the tally);
/// a partial one every page up to the one it is at.
fn drop_off(
    fields: &[Field],
    tally: &Tally,
    partials: &[(String, i32, i64)],
) -> Vec<pb::PageReach> {
    if !logic::has_pages(fields) {
        return Vec::new();
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
    for (_, page, count) in partials {
        let at = usize::try_from(*page).unwrap_or(0).min(last);
        for n in reached.iter_mut().take(at) {
            *n += count;
        }
    }
    for (page, count) in &tally.pages {
        if let Some(n) = page.checked_sub(1).and_then(|i| reached.get_mut(i)) {
            *n += count;
        }
    }
    reached
        .into_iter()
        .zip(titles)
        .enumerate()
        .map(|(i, (reached, title))| pb::PageReach {
            page: i32::try_from(i + 1).unwrap_or(i32::MAX),
            title,
            reached,
        })
        .collect()
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
        let mut t = FieldTally::default();
        t.values.insert("10".into(), 2);
        t.values.insert("3".into(), 1);
        let summary = scale(&field, &t);
        assert_eq!(summary.distribution.len(), 11);
        assert_eq!(summary.average, Some(23.0 / 3.0));
        assert_eq!(summary.nps, Some(33.3));
        let empty = scale(&field, &FieldTally::default());
        assert_eq!((empty.average, empty.nps), (None, None));
    }

    #[test]
    fn no_responses_have_no_completion_rate() {
        assert_eq!(completion_rate(0, 0), None);
        assert_eq!(completion_rate(3, 1), Some(0.75));
    }
}

//! The summary of a form's responses (`/app/forms/{id}/summary`): the core's
//! GetFormSummary drawn on the server. Responses per day as bars, each choice's options
//! as bars, a scale's average and its NPS as a gauge, and how many reached each page as
//! a funnel; every picture has its figures beside it as text or a table. No script.

use super::chart::{self, Day, Step};
use super::layout::{self, FormTab, Section};
use super::owner::Owner;
use super::results::segment;
use axum::extract::Path;
use axum::response::Response;
use forms::pb::FieldKind;
use forms::pb::{self, field_summary::Detail};
use maud::{Markup, html};

/// A count as a share of `of`, in whole percent.
fn percent(count: i64, of: i64) -> String {
    if of <= 0 {
        return "–".to_owned();
    }
    format!("{:.0} %", count as f64 * 100.0 / of as f64)
}

/// A count of people: "1 promoter", "2 promoters".
fn people(count: i64, one: &str) -> String {
    match count {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    }
}

/// A number with at most one decimal.
fn figure(value: Option<f64>) -> String {
    value.map_or("–".to_owned(), |v| {
        if v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    })
}

/// Horizontal bars of labelled counts, scaled to the largest, each with its count and
/// share written beside it (the bar only repeats what the text says).
fn bars(rows: &[(String, i64)], of: i64, label: &str) -> Markup {
    let max = rows.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    html! {
        table class="bars" aria-label=(label) {
            tbody {
                @for (name, count) in rows {
                    tr {
                        th scope="row" { (name) }
                        td class="bar-cell" {
                            svg width="160" height="12" viewBox="0 0 160 12" aria-hidden="true" focusable="false" {
                                rect x="0" y="1" height="10" width=(format!("{:.1}", *count as f64 / max as f64 * 160.0)) {}
                            }
                        }
                        td class="num" { (count) }
                        td class="num" { (percent(*count, of)) }
                    }
                }
            }
        }
    }
}

/// A 0–10 scale's NPS: the gauge, and the score with its three groups as text (the
/// groups of the score's definition in GetFormSummary: 9–10 promote, 0–6 detract).
fn nps_figures(nps: f64, s: &pb::ScaleSummary, label: &str) -> Markup {
    let group = |values: std::ops::RangeInclusive<i64>| {
        s.distribution
            .iter()
            .filter(|d| values.contains(&d.value))
            .map(|d| d.count)
            .sum::<i64>()
    };
    let (promoters, passives, detractors) = (group(9..=10), group(7..=8), group(0..=6));
    let all = promoters + passives + detractors;
    html! {
        div class="nps" {
            (chart::nps_gauge(nps, &format!(
                "Net Promoter Score of {label}: {} on a scale from −100 to 100",
                figure(Some(nps))
            )))
            div {
                p { "Net Promoter Score " strong { (figure(Some(nps))) } " (from −100 to 100)" }
                p {
                    (people(promoters, "promoter")) " (9–10, " (percent(promoters, all)) "), "
                    (people(passives, "passive")) " (7–8, " (percent(passives, all)) "), "
                    (people(detractors, "detractor")) " (0–6, " (percent(detractors, all)) ")"
                }
            }
        }
    }
}

/// Whether page `n` (from 1) is shown only when a condition holds: the page break
/// that starts it has one (read from the form, for the words and the picture only).
fn for_some(fields: &[pb::FormField], n: i32) -> bool {
    usize::try_from(n - 2)
        .ok()
        .and_then(|i| fields.iter().filter(|f| f.is(FieldKind::PageBreak)).nth(i))
        .is_some_and(|f| !f.show_if.is_empty())
}

/// How many were shown each page: a funnel, and its figures as a table (each page's
/// count, its share of those who reached the first, and how many were lost since the
/// page before that everyone is shown). A page with a condition is shown to some only:
/// fewer there is no loss, so it is compared with nothing, and the next page is
/// compared with the page before it.
fn drop_off(pages: &[pb::PageReach], fields: &[pb::FormField]) -> Markup {
    let first = pages.first().map_or(0, |p| p.reached);
    let last = pages.last().map_or(0, |p| p.reached);
    let steps: Vec<Step> = pages
        .iter()
        .map(|p| Step {
            reached: p.reached,
            for_some: for_some(fields, p.page),
        })
        .collect();
    let label = format!(
        "Funnel of {} pages: {first} reached the first, {last} the last ({})",
        pages.len(),
        percent(last, first)
    );
    // Lost since the last page before it that everyone is shown, and how many that
    // page had.
    let mut before: Option<i64> = None;
    let lost: Vec<Option<(i64, i64)>> = steps
        .iter()
        .map(|s| {
            if s.for_some {
                return None;
            }
            let lost = before.map(|b| ((b - s.reached).max(0), b));
            before = Some(s.reached);
            lost
        })
        .collect();
    html! {
        div class="drop-off" {
            (chart::funnel(&steps, &label))
            div class="table-wrap" tabindex="0" role="region" aria-label="Respondents who reached each page" {
            table {
                thead {
                    tr {
                        th scope="col" { "Page" }
                        th scope="col" class="num" { "Reached" }
                        th scope="col" class="num" { "Of the first page" }
                        th scope="col" class="num" { "Lost since the page before" }
                    }
                }
                tbody {
                    @for (i, p) in pages.iter().enumerate() {
                        tr {
                            th scope="row" {
                                @if p.title.is_empty() { "Page " (p.page) } @else { "Page " (p.page) ": " (p.title) }
                            }
                            td class="num" { (p.reached) }
                            td class="num" { (percent(p.reached, first)) }
                            td class="num" {
                                @match (steps[i].for_some, lost[i]) {
                                    (true, _) => span class="muted" { "Shown only when its condition holds" },
                                    (false, Some((n, of))) => { (n) " (" (percent(n, of)) ")" },
                                    (false, None) => "–",
                                }
                            }
                        }
                    }
                }
            }
            }
        }
    }
}

fn field(f: &pb::FieldSummary) -> Markup {
    let detail = match &f.detail {
        Some(Detail::Choice(c)) => {
            let mut rows: Vec<(String, i64)> = c
                .options
                .iter()
                .map(|o| (o.label.clone(), o.count))
                .collect();
            if c.other > 0 {
                rows.push(("Other".to_owned(), c.other));
            }
            bars(&rows, f.answered, &format!("Answers to {}", f.label))
        }
        Some(Detail::Scale(s)) => {
            let rows: Vec<(String, i64)> = s
                .distribution
                .iter()
                .map(|d| (d.value.to_string(), d.count))
                .collect();
            html! {
                p { "Average " strong { (figure(s.average)) } }
                @if let Some(nps) = s.nps {
                    (nps_figures(nps, s, &f.label))
                }
                (bars(&rows, f.answered, &format!("Answers to {}", f.label)))
            }
        }
        Some(Detail::Number(n)) => html! {
            p { "Lowest " (figure(n.min)) ", highest " (figure(n.max)) ", average " (figure(n.average)) }
        },
        Some(Detail::Date(d)) => html! {
            p {
                "Earliest " (d.earliest.as_deref().unwrap_or("–"))
                ", latest " (d.latest.as_deref().unwrap_or("–"))
            }
        },
        Some(Detail::Checkbox(c)) => html! {
            p { "Ticked " (c.ticked) " (" (percent(c.ticked, f.answered)) ")" }
        },
        Some(Detail::Text(t)) => html! {
            @if !t.newest.is_empty() {
                ul class="newest" {
                    @for answer in &t.newest { li { (answer.value) } }
                }
            }
        },
        None => html! {},
    };
    html! {
        section class="field-summary" {
            h3 { (f.label) }
            p class="muted" { (f.answered) " answered" }
            (detail)
        }
    }
}

/// `GET /app/forms/{id}/summary`.
pub(crate) async fn page(owner: Owner, Path(form_id): Path<String>) -> Response {
    let form = match owner.form(&form_id).await {
        Ok(form) => form,
        Err(page) => return page,
    };
    let reply = owner
        .state
        .responses()
        .get_form_summary(owner.request(pb::GetFormSummaryRequest {
            form_id: form.id.clone(),
            ..Default::default()
        }))
        .await;
    let summary = match reply {
        Ok(reply) => reply.into_inner().summary.unwrap_or_default(),
        Err(status) => return owner.failure(&status),
    };
    let counts = summary.counts.unwrap_or_default();
    let days: Vec<Day<'_>> = counts
        .per_day
        .iter()
        .map(|d| Day {
            day: &d.date,
            total: d.completed + d.partial,
            part: d.partial,
        })
        .collect();
    let time = summary.completion_time.unwrap_or_default();
    let shares = |values: &[pb::ValueCount], label: &str| {
        let rows: Vec<(String, i64)> = values.iter().map(|v| (v.value.clone(), v.count)).collect();
        bars(&rows, counts.completed, label)
    };
    let form_url = format!("/app/forms/{}", segment(&form.id));
    let body = html! {
        (layout::crumbs(&[("/app/forms", "Forms"), (&form_url, &form.title)], "Summary"))
        h1 { "Summary" span class="visually-hidden" { " of " (form.title) } }
        (layout::form_tabs(&form.id, FormTab::Summary))
        p {
            strong { (counts.completed) } " completed, "
            strong { (counts.partial) } " unfinished; completion rate "
            strong { (counts.completion_rate.map_or("–".to_owned(), |r| format!("{:.0} %", r * 100.0))) }
            @if let (Some(median), Some(p90)) = (time.median_seconds, time.p90_seconds) {
                ". Median time to complete " (figure(Some(median))) " s, 90th percentile "
                (figure(Some(p90))) " s."
            } @else { "." }
        }
        @if !days.is_empty() {
            h2 { "Responses per day" }
            p class="legend" {
                span class="swatch requests" {} " Finished"
                span class="swatch errors" {} " Unfinished"
            }
            (chart::daily_bars(&days, &format!(
                "Responses per day from {} to {}",
                days.first().map_or("", |d| d.day),
                days.last().map_or("", |d| d.day)
            )))
        }
        @if !summary.pages.is_empty() {
            h2 { "How far people got" }
            (drop_off(&summary.pages, &form.fields))
        }
        h2 { "Devices" }
        div class="row shares" {
            (shares(&summary.device_types, "Device types"))
            (shares(&summary.browsers, "Browsers"))
            (shares(&summary.operating_systems, "Operating systems"))
        }
        h2 { "Answers" }
        @for f in &summary.fields { (field(f)) }
    };
    owner.page(&format!("Summary · {}", form.title), Section::Forms, body)
}

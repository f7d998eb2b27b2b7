//! Charts drawn on the server as SVG: no script, nothing inline but attributes, and a
//! text equivalent beside each for people who do not see it.

use maud::{Markup, html};

/// A small line of daily counts (oldest first), with a label saying what it shows.
pub(crate) fn sparkline(values: &[i64], label: &str) -> Markup {
    const W: f64 = 112.0;
    const H: f64 = 24.0;
    let max = values.iter().copied().max().unwrap_or(0).max(1) as f64;
    let step = if values.len() > 1 {
        W / (values.len() - 1) as f64
    } else {
        0.0
    };
    let points: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            format!(
                "{:.1},{:.1}",
                i as f64 * step,
                H - 1.0 - (*v as f64 / max) * (H - 2.0)
            )
        })
        .collect();
    html! {
        svg class="spark" width="112" height="24" viewBox="0 0 112 24" role="img" aria-label=(label) {
            polyline points=(points.join(" ")) {}
        }
    }
}

/// One bar of a daily chart: the day (YYYY-MM-DD), the whole count and the part of it
/// drawn in the second colour (requests, and the errors among them).
pub(crate) struct Day<'a> {
    pub(crate) day: &'a str,
    pub(crate) total: i64,
    pub(crate) part: i64,
}

/// Daily bars (oldest first): each day's total as a bar, its part drawn over the bar's
/// foot, scaled to the busiest day, with the busiest count and the first and last days
/// written on the axes. `label` says what the picture shows, for people who do not see
/// it (the page also gives the figures as a table).
pub(crate) fn daily_bars(days: &[Day<'_>], label: &str) -> Markup {
    const W: f64 = 720.0;
    const H: f64 = 160.0;
    const TOP: f64 = 14.0;
    const FOOT: f64 = 16.0;
    let plot = H - TOP - FOOT;
    let max = days
        .iter()
        .map(|d| d.total.max(d.part))
        .max()
        .unwrap_or(0)
        .max(1);
    let step = W / days.len().max(1) as f64;
    let bar = (step - 1.0).max(1.0);
    let height = |v: i64| (v.max(0) as f64 / max as f64) * plot;
    html! {
        svg class="chart" viewBox={"0 0 " (W) " " (H)} role="img" aria-label=(label) {
            line x1="0" y1=(H - FOOT) x2=(W) y2=(H - FOOT) {}
            text x="0" y="10" { (max) }
            @for (i, d) in days.iter().enumerate() {
                @let x = format!("{:.1}", i as f64 * step);
                @let total = height(d.total);
                @let part = height(d.part);
                @if d.total > 0 {
                    rect class="requests" x=(x) y=(format!("{:.1}", H - FOOT - total)) width=(format!("{bar:.1}")) height=(format!("{total:.1}")) {}
                }
                @if d.part > 0 {
                    rect class="errors" x=(x) y=(format!("{:.1}", H - FOOT - part)) width=(format!("{bar:.1}")) height=(format!("{part:.1}")) {}
                }
            }
            @if let (Some(first), Some(last)) = (days.first(), days.last()) {
                text x="0" y=(H - 3.0) { (first.day) }
                text x=(W) y=(H - 3.0) text-anchor="end" { (last.day) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Day, daily_bars, sparkline};

    #[test]
    fn daily_bars_scale_to_the_busiest_day_and_draw_errors_over_requests() {
        let days = [
            Day {
                day: "2026-01-01",
                total: 0,
                part: 0,
            },
            Day {
                day: "2026-01-02",
                total: 10,
                part: 5,
            },
            Day {
                day: "2026-01-03",
                total: 5,
                part: 0,
            },
        ];
        let svg = daily_bars(&days, "15 requests").into_string();
        // A bar per day with requests (the empty day draws none), the busiest at full
        // height (130 = 160 - 14 - 16), half of it for its errors.
        assert_eq!(svg.matches(r#"class="requests""#).count(), 2, "{svg}");
        assert_eq!(svg.matches(r#"class="errors""#).count(), 1, "{svg}");
        assert!(
            svg.contains(r#"y="14.0" width="239.0" height="130.0""#),
            "{svg}"
        );
        assert!(
            svg.contains(r#"y="79.0" width="239.0" height="65.0""#),
            "{svg}"
        );
        assert!(svg.contains("2026-01-01") && svg.contains("2026-01-03"));
        assert!(svg.contains(r#"aria-label="15 requests""#));
        // No day at all still draws, without dividing by zero.
        assert!(daily_bars(&[], "none").into_string().contains("<svg"));
    }

    #[test]
    fn a_sparkline_has_a_point_per_day_scaled_to_the_busiest() {
        let svg = sparkline(&[0, 5, 10], "3 days").into_string();
        assert!(
            svg.contains(r#"points="0.0,23.0 56.0,12.0 112.0,1.0""#),
            "{svg}"
        );
        assert!(svg.contains(r#"aria-label="3 days""#));
        // No day at all still draws (an empty line), without dividing by zero.
        assert!(sparkline(&[], "none").into_string().contains("points=\"\""));
    }
}

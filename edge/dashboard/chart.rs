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
/// foot, scaled to the busiest day. A bar is at most a seventh of the width, so that a
/// day or two of data reads as bars, not as a slab. The busiest count and the first and
/// last days are written under the picture as text, so that they stay readable however
/// narrow the screen (text inside the SVG would shrink with it). `label` says what the
/// picture shows, for people who do not see it.
pub(crate) fn daily_bars(days: &[Day<'_>], label: &str) -> Markup {
    const W: f64 = 720.0;
    const H: f64 = 140.0;
    const FEWEST: usize = 7;
    let max = days
        .iter()
        .map(|d| d.total.max(d.part))
        .max()
        .unwrap_or(0)
        .max(1);
    let step = W / days.len().max(FEWEST) as f64;
    let bar = (step * 0.8).max(1.0);
    let height = |v: i64| (v.max(0) as f64 / max as f64) * (H - 1.0);
    html! {
        div class="daily" {
            svg class="chart" viewBox={"0 0 " (W) " " (H)} role="img" aria-label=(label) {
                line x1="0" y1=(H) x2=(W) y2=(H) {}
                @for (i, d) in days.iter().enumerate() {
                    @let x = format!("{:.1}", i as f64 * step);
                    @let total = height(d.total);
                    @let part = height(d.part);
                    @if d.total > 0 {
                        rect class="requests" x=(x) y=(format!("{:.1}", H - total)) width=(format!("{bar:.1}")) height=(format!("{total:.1}")) {}
                    }
                    @if d.part > 0 {
                        rect class="errors" x=(x) y=(format!("{:.1}", H - part)) width=(format!("{bar:.1}")) height=(format!("{part:.1}")) {}
                    }
                }
            }
            @if let (Some(first), Some(last)) = (days.first(), days.last()) {
                p class="axis" aria-hidden="true" {
                    span { (first.day) }
                    span { "Busiest day: " (max) }
                    @if days.len() > 1 { span { (last.day) } }
                }
            }
        }
    }
}

/// A semicircle gauge of a Net Promoter Score, from -100 (left) through 0 (top) to 100
/// (right): an arc from 0 to the score (to the right when positive, to the left when
/// negative), with the score written in its middle and the ends labelled. `label` says
/// what it shows, for people who do not see it (the page gives the figures as text).
pub(crate) fn nps_gauge(score: f64, label: &str) -> Markup {
    const CX: f64 = 100.0;
    const CY: f64 = 110.0;
    const R: f64 = 80.0;
    let score = score.clamp(-100.0, 100.0);
    // The angle from the right end, counter-clockwise: -100 at pi, 100 at 0.
    let angle = std::f64::consts::PI * (100.0 - score) / 200.0;
    let (x, y) = (CX + R * angle.cos(), CY - R * angle.sin());
    // From the top: clockwise (sweep 1) towards 100, counter-clockwise towards -100.
    let sweep = u8::from(score > 0.0);
    let arc = format!(
        "M {CX:.1} {:.1} A {R:.0} {R:.0} 0 0 {sweep} {x:.1} {y:.1}",
        CY - R
    );
    let class = if score < 0.0 {
        "nps-arc negative"
    } else {
        "nps-arc"
    };
    let shown = if score.fract() == 0.0 {
        format!("{score:.0}")
    } else {
        format!("{score:.1}")
    };
    html! {
        svg class="gauge" viewBox="0 0 200 128" role="img" aria-label=(label) {
            path class="nps-track" d={"M " (CX - R) " " (CY) " A " (R) " " (R) " 0 0 1 " (CX + R) " " (CY)} {}
            @if score != 0.0 {
                path class=(class) d=(arc) {}
            }
            line class="nps-tick" x1=(CX) y1=(CY - R - 12.0) x2=(CX) y2=(CY - R + 12.0) {}
            text class="nps-score" x=(CX) y=(CY - 8.0) text-anchor="middle" { (shown) }
            text x=(CX - R) y=(CY + 16.0) text-anchor="middle" { "−100" }
            text x=(CX) y="10" text-anchor="middle" { "0" }
            text x=(CX + R) y=(CY + 16.0) text-anchor="middle" { "100" }
        }
    }
}

/// One step of a funnel: how many reached it, and whether only some are shown it (a
/// page with a condition), which is drawn apart, lighter and joined to nothing: its
/// count may be below the next step's, and a band to it would draw an hourglass.
#[derive(Clone, Copy)]
pub(crate) struct Step {
    pub(crate) reached: i64,
    pub(crate) for_some: bool,
}

/// A funnel of how many reached each step (first step first): one bar per step,
/// centred, as wide as its count against the largest, joined to the next step shown to
/// everyone by a band that narrows with the drop between them. `label` says what it
/// shows, for people who do not see it (the page gives the figures as a table).
pub(crate) fn funnel(steps: &[Step], label: &str) -> Markup {
    const W: f64 = 320.0;
    const BAR: f64 = 24.0;
    const GAP: f64 = 14.0;
    let max = steps.iter().map(|s| s.reached).max().unwrap_or(0).max(1) as f64;
    let bars: Vec<(f64, f64, f64, bool)> = steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // A step that someone reached stays visible, however thin.
            let width = match s.reached {
                n if n <= 0 => 0.0,
                n => (n as f64 / max * W).max(2.0),
            };
            ((W - width) / 2.0, i as f64 * (BAR + GAP), width, s.for_some)
        })
        .collect();
    let height = (steps.len() as f64 * (BAR + GAP) - GAP).max(BAR);
    html! {
        svg class="funnel" viewBox={"0 0 " (W) " " (height)} role="img" aria-label=(label) {
            @for pair in bars.windows(2).filter(|p| !p[0].3 && !p[1].3) {
                @let ((x0, y0, w0, _), (x1, y1, w1, _)) = (pair[0], pair[1]);
                polygon class="funnel-band" points=(format!(
                    "{x0:.1},{:.1} {:.1},{:.1} {:.1},{y1:.1} {x1:.1},{y1:.1}",
                    y0 + BAR, x0 + w0, y0 + BAR, x1 + w1
                )) {}
            }
            @for (x, y, width, for_some) in &bars {
                @if *width > 0.0 {
                    rect class=[for_some.then_some("for-some")] x=(format!("{x:.1}")) y=(format!("{y:.1}")) width=(format!("{width:.1}")) height=(BAR) {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Day, Step, daily_bars, funnel, nps_gauge, sparkline};

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
        // height (139 of 140), half of it for its errors; a bar is at most 4/5 of a
        // seventh of the width (82.3 of 720), however few the days.
        assert_eq!(svg.matches(r#"class="requests""#).count(), 2, "{svg}");
        assert_eq!(svg.matches(r#"class="errors""#).count(), 1, "{svg}");
        assert!(
            svg.contains(r#"y="1.0" width="82.3" height="139.0""#),
            "{svg}"
        );
        assert!(
            svg.contains(r#"y="70.5" width="82.3" height="69.5""#),
            "{svg}"
        );
        // The days and the busiest count are text beside the picture, not in it.
        assert!(
            svg.contains(
                "<span>2026-01-01</span><span>Busiest day: 10</span><span>2026-01-03</span>"
            ),
            "{svg}"
        );
        let one = daily_bars(&days[1..2], "one day").into_string();
        assert!(one.contains(r#"width="82.3""#), "not a slab: {one}");
        assert!(!one.contains("<text"), "{one}");
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

    #[test]
    fn the_gauge_arcs_from_zero_to_the_score() {
        // 100 ends at the right end, -100 at the left, 0 draws no arc; 50 at 45 degrees.
        let svg = nps_gauge(100.0, "NPS 100").into_string();
        assert!(
            svg.contains(r#"d="M 100.0 30.0 A 80 80 0 0 1 180.0 110.0""#),
            "{svg}"
        );
        assert!(svg.contains(">100</text>") && svg.contains(r#"aria-label="NPS 100""#));
        let svg = nps_gauge(-100.0, "").into_string();
        assert!(
            svg.contains(r#"class="nps-arc negative" d="M 100.0 30.0 A 80 80 0 0 0 20.0 110.0""#),
            "{svg}"
        );
        let svg = nps_gauge(50.0, "").into_string();
        assert!(svg.contains("A 80 80 0 0 1 156.6 53.4"), "{svg}");
        let svg = nps_gauge(-33.3, "").into_string();
        assert!(svg.contains(">-33.3</text>"), "{svg}");
        let svg = nps_gauge(0.0, "").into_string();
        assert!(!svg.contains("nps-arc"), "{svg}");
        // Out of range (never sent) stays on the dial.
        assert!(nps_gauge(250.0, "").into_string().contains("180.0 110.0"));
    }

    #[test]
    fn the_funnel_narrows_with_each_step() {
        let all = |reached| Step {
            reached,
            for_some: false,
        };
        let svg = funnel(&[all(4), all(3), all(1), all(0)], "4 started").into_string();
        // Centred bars scaled to the largest step; an empty step draws no bar.
        assert!(svg.contains(r#"x="0.0" y="0.0" width="320.0""#), "{svg}");
        assert!(svg.contains(r#"x="40.0" y="38.0" width="240.0""#), "{svg}");
        assert!(svg.contains(r#"x="120.0" y="76.0" width="80.0""#), "{svg}");
        assert_eq!(svg.matches("<rect").count(), 3, "{svg}");
        // A band joins each step to the next.
        assert_eq!(svg.matches("funnel-band").count(), 3, "{svg}");
        assert!(
            svg.contains(r#"points="0.0,24.0 320.0,24.0 280.0,38.0 40.0,38.0""#),
            "{svg}"
        );
        assert!(svg.contains(r#"viewBox="0 0 320 138""#), "{svg}");
        // A step shown to some (a page with a condition) is drawn apart, joined to
        // nothing: fewer there than on the next step is no hourglass.
        let some = Step {
            reached: 1,
            for_some: true,
        };
        let svg = funnel(&[all(4), some, all(3)], "with a condition").into_string();
        assert_eq!(svg.matches("funnel-band").count(), 0, "{svg}");
        assert_eq!(svg.matches(r#"class="for-some""#).count(), 1, "{svg}");
        // Nobody at all still draws, without dividing by zero.
        assert!(
            funnel(&[all(0), all(0)], "none")
                .into_string()
                .contains("<svg")
        );
        assert!(funnel(&[], "none").into_string().contains("<svg"));
    }
}

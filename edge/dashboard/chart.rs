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

#[cfg(test)]
mod tests {
    use super::sparkline;

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

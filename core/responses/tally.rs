//! What a form's completed responses add up to, for its summary: counts, completion
//! times, devices, per-field figures and pages reached, kept so that two tallies merge
//! and one can be stored and continued.
//!
//! The rule: a tally is the sum of `add` over a set of responses, and everything the
//! summary shows is read from it, so that a stored tally plus the responses after it
//! gives the same figures as all the responses read at once (the `rollup` keeps one
//! per form; the summary adds the responses since). Every figure is exact: counts are
//! integers, completion times are kept per second so that their percentiles are those
//! of the values, and the number sums are exact decimals while they fit an i128 of
//! millionths (else the average is a float's).

use crate::forms::logic;
use crate::forms::{Field, FieldKind};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A completed response as a tally reads it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TallyRow {
    pub answers: sqlx::types::Json<Map<String, Value>>,
    pub device_type: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
    pub submitted_at: DateTime<Utc>,
    pub completion_time_seconds: Option<i64>,
    pub language: Option<String>,
}

/// The figures of a set of completed responses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub completed: i64,
    /// Completed responses per UTC date (`YYYY-MM-DD`).
    pub per_day: BTreeMap<String, i64>,
    /// How many took each number of seconds.
    pub times: BTreeMap<i64, i64>,
    pub device_types: BTreeMap<String, i64>,
    pub browsers: BTreeMap<String, i64>,
    pub operating_systems: BTreeMap<String, i64>,
    /// Per language answered in (`unknown`: none recorded). Missing from the tallies
    /// stored before languages were recorded, which migration 0044 dropped.
    #[serde(default)]
    pub languages: BTreeMap<String, i64>,
    /// Per answered field id.
    pub fields: BTreeMap<String, FieldTally>,
    /// How many reached each page (1-based; forms with pages).
    pub pages: BTreeMap<usize, i64>,
}

/// The figures of one field's answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FieldTally {
    pub answered: i64,
    /// Checkbox answers that are `true`.
    pub ticked: i64,
    /// Counts per option id or whole value (choices, ratings, scales); an array
    /// answer counts each item.
    pub values: BTreeMap<String, i64>,
    /// "Other" answers of a choice.
    pub other: i64,
    pub numbers: Option<Numbers>,
    /// Dates as `YYYY-MM-DD` (their byte order is their time order).
    pub earliest: Option<String>,
    pub latest: Option<String>,
}

/// Number answers: how many, their range and their sum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Numbers {
    pub count: i64,
    pub min: f64,
    pub max: f64,
    /// Exact sum in millionths, while every number had at most six decimals and the
    /// sum fits; else `None` and `float_sum` alone.
    pub exact_sum: Option<i128>,
    pub float_sum: f64,
}

const MICROS: f64 = 1_000_000.0;

impl Numbers {
    fn of(n: f64) -> Self {
        Self {
            count: 1,
            min: n,
            max: n,
            exact_sum: micros(n),
            float_sum: n,
        }
    }

    fn merge(&mut self, other: &Numbers) {
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.exact_sum = match (self.exact_sum, other.exact_sum) {
            (Some(a), Some(b)) => a.checked_add(b),
            _ => None,
        };
        self.float_sum += other.float_sum;
    }

    pub fn average(&self) -> f64 {
        match self.exact_sum {
            Some(sum) => sum as f64 / MICROS / self.count as f64,
            None => self.float_sum / self.count as f64,
        }
    }
}

/// `n` in millionths, when that is exact.
fn micros(n: f64) -> Option<i128> {
    let scaled = (n * MICROS).round();
    (scaled.abs() < 1e30 && (scaled / MICROS - n).abs() <= f64::EPSILON * n.abs().max(1.0))
        .then_some(scaled as i128)
}

fn bump(map: &mut BTreeMap<String, i64>, key: Option<&str>, by: i64) {
    *map.entry(key.unwrap_or("unknown").to_owned()).or_default() += by;
}

impl Tally {
    /// Counts one completed response of a form with `fields` (`paged`: it has pages).
    pub fn add(&mut self, row: &TallyRow, fields: &[Field], paged: bool) {
        self.completed += 1;
        *self
            .per_day
            .entry(row.submitted_at.format("%Y-%m-%d").to_string())
            .or_default() += 1;
        if let Some(t) = row.completion_time_seconds {
            *self.times.entry(t).or_default() += 1;
        }
        bump(&mut self.device_types, row.device_type.as_deref(), 1);
        bump(&mut self.browsers, row.browser.as_deref(), 1);
        bump(&mut self.operating_systems, row.os.as_deref(), 1);
        bump(&mut self.languages, row.language.as_deref(), 1);
        for (key, value) in row.answers.iter() {
            if value.is_null() {
                continue;
            }
            let kind = fields
                .iter()
                .find(|f| f.id.to_string() == *key)
                .map(|f| f.kind);
            self.fields.entry(key.clone()).or_default().add(kind, value);
        }
        if paged {
            for (page, shown) in logic::shown_pages(fields, &row.answers) {
                if shown {
                    *self.pages.entry(page).or_default() += 1;
                }
            }
        }
    }

    /// Adds `other`'s responses to these.
    pub fn merge(&mut self, other: &Tally) {
        self.completed += other.completed;
        for (to, from) in [
            (&mut self.per_day, &other.per_day),
            (&mut self.device_types, &other.device_types),
            (&mut self.browsers, &other.browsers),
            (&mut self.operating_systems, &other.operating_systems),
            (&mut self.languages, &other.languages),
        ] {
            for (k, n) in from {
                *to.entry(k.clone()).or_default() += n;
            }
        }
        for (t, n) in &other.times {
            *self.times.entry(*t).or_default() += n;
        }
        for (p, n) in &other.pages {
            *self.pages.entry(*p).or_default() += n;
        }
        for (id, f) in &other.fields {
            self.fields.entry(id.clone()).or_default().merge(f);
        }
    }

    /// How many completion times are known, and their median and 90th percentile,
    /// interpolated between the two nearest values as PostgreSQL's `percentile_cont`.
    pub fn timing(&self) -> (i64, Option<f64>, Option<f64>) {
        let timed: i64 = self.times.values().sum();
        (
            timed,
            percentile(&self.times, timed, 0.5),
            percentile(&self.times, timed, 0.9),
        )
    }
}

/// The `p` percentile of `timed` values counted in `counts`.
fn percentile(counts: &BTreeMap<i64, i64>, timed: i64, p: f64) -> Option<f64> {
    if timed == 0 {
        return None;
    }
    let position = p * (timed - 1) as f64;
    let (below, above) = (position.floor() as i64, position.ceil() as i64);
    let value_at = |index: i64| {
        let mut seen = 0;
        for (value, n) in counts {
            seen += n;
            if index < seen {
                return *value as f64;
            }
        }
        0.0
    };
    let low = value_at(below);
    let high = value_at(above);
    Some(low + (position - below as f64) * (high - low))
}

impl FieldTally {
    fn add(&mut self, kind: Option<FieldKind>, value: &Value) {
        use FieldKind as K;
        self.answered += 1;
        if *value == Value::Bool(true) {
            self.ticked += 1;
        }
        match kind {
            Some(k) if k.has_options() || matches!(k, K::Rating | K::Scale) => {
                let items = match value {
                    Value::Array(items) => items.as_slice(),
                    one => std::slice::from_ref(one),
                };
                for item in items {
                    match item {
                        Value::Null => {}
                        Value::Object(_) => self.other += 1,
                        Value::String(s) => bump(&mut self.values, Some(s), 1),
                        other => bump(&mut self.values, Some(&other.to_string()), 1),
                    }
                }
            }
            Some(K::Number) => {
                if let Some(n) = value.as_f64() {
                    let one = Numbers::of(n);
                    match &mut self.numbers {
                        Some(numbers) => numbers.merge(&one),
                        None => self.numbers = Some(one),
                    }
                }
            }
            Some(K::Date) => {
                if let Some(d) = value.as_str() {
                    if self.earliest.as_deref().is_none_or(|e| d < e) {
                        self.earliest = Some(d.to_owned());
                    }
                    if self.latest.as_deref().is_none_or(|l| d > l) {
                        self.latest = Some(d.to_owned());
                    }
                }
            }
            _ => {}
        }
    }

    fn merge(&mut self, other: &FieldTally) {
        self.answered += other.answered;
        self.ticked += other.ticked;
        self.other += other.other;
        for (k, n) in &other.values {
            *self.values.entry(k.clone()).or_default() += n;
        }
        match (&mut self.numbers, &other.numbers) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.numbers = Some(b.clone()),
            _ => {}
        }
        for d in other.earliest.iter() {
            if self.earliest.as_deref().is_none_or(|e| d.as_str() < e) {
                self.earliest = Some(d.clone());
            }
        }
        for d in other.latest.iter() {
            if self.latest.as_deref().is_none_or(|l| d.as_str() > l) {
                self.latest = Some(d.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use uuid::Uuid;

    fn row(answers: Value, seconds: Option<i64>, day: i64) -> TallyRow {
        TallyRow {
            answers: sqlx::types::Json(answers.as_object().cloned().unwrap_or_default()),
            device_type: Some("mobile".into()),
            browser: None,
            os: None,
            submitted_at: DateTime::from_timestamp(day * 86_400, 0).unwrap_or_default(),
            completion_time_seconds: seconds,
            language: Some("de".into()),
        }
    }

    fn fields() -> Vec<Field> {
        [FieldKind::Number, FieldKind::Rating, FieldKind::Date]
            .into_iter()
            .map(|kind| Field {
                id: Uuid::new_v4(),
                kind,
                ..Field::default()
            })
            .collect()
    }

    #[test]
    fn a_stored_tally_continued_equals_one_read_at_once() {
        let fields = fields();
        let (n, r, d) = (
            fields[0].id.to_string(),
            fields[1].id.to_string(),
            fields[2].id.to_string(),
        );
        let rows: Vec<TallyRow> = (0..10)
            .map(|i| {
                row(
                    json!({ &n: i as f64 / 10.0, &r: 1 + i % 5, &d: format!("2026-01-{:02}", 10 - i) }),
                    Some(i * 7),
                    i / 3,
                )
            })
            .collect();
        let mut whole = Tally::default();
        rows.iter().for_each(|row| whole.add(row, &fields, false));
        let mut first = Tally::default();
        rows[..4]
            .iter()
            .for_each(|row| first.add(row, &fields, false));
        // Stored as JSON and read back, as the rollup keeps it.
        let mut stored: Tally =
            serde_json::from_value(serde_json::to_value(&first).unwrap_or_default())
                .unwrap_or_default();
        let mut rest = Tally::default();
        rows[4..]
            .iter()
            .for_each(|row| rest.add(row, &fields, false));
        stored.merge(&rest);
        assert_eq!(stored, whole);
        assert_eq!(whole.completed, 10);
        assert_eq!(whole.per_day.get("1970-01-01"), Some(&3));
        let numbers = whole.fields[&n]
            .numbers
            .clone()
            .unwrap_or_else(|| Numbers::of(0.0));
        // 0.0 + 0.1 + ... + 0.9 = 4.5 exactly, where floats give 4.499999999999999.
        assert_eq!(numbers.average(), 0.45);
        assert_eq!((numbers.min, numbers.max), (0.0, 0.9));
        assert_eq!(whole.fields[&r].values.get("1"), Some(&2));
        assert_eq!(whole.fields[&d].earliest.as_deref(), Some("2026-01-01"));
        assert_eq!(whole.fields[&d].latest.as_deref(), Some("2026-01-10"));
    }

    #[test]
    fn percentiles_interpolate_as_percentile_cont() {
        let mut t = Tally::default();
        for v in [10, 20, 30, 40] {
            *t.times.entry(v).or_default() += 1;
        }
        // Median of 10, 20, 30, 40: 25; p90: position 2.7, 30 + 0.7 * 10.
        let (timed, median, p90) = t.timing();
        assert_eq!(timed, 4);
        assert_eq!(median, Some(25.0));
        assert!(p90.is_some_and(|p| (p - 37.0).abs() < 1e-9));
        assert_eq!(Tally::default().timing(), (0, None, None));
    }
}

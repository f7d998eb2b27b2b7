//! The inbox's filter: what the address asks (search, one condition on an answer, the
//! dates, the page size, finished or unfinished), checked into the core's
//! `ResponseFilter` and bounds. A mistake is a [`Mistake`]: the input it belongs to and
//! what to fix in plain words, shown beside that input with what was typed kept.

use chrono::{Duration, NaiveDate, TimeZone, Utc};
use forms::pb::{self, convert};
use serde::Deserialize;

/// Rows per page unless `per_page` says otherwise (1 to 100).
pub(crate) const PER_PAGE: i32 = 25;

/// The query of the inbox and of its downloads. Everything is text here and checked
/// by `Filter::parse`, so that bad input is shown beside the filter as typed.
#[derive(Deserialize, Default, Clone)]
pub(crate) struct InboxQuery {
    /// Search text (the API's `q`).
    pub q: Option<String>,
    /// One condition on an answer: the field's id, an operator of `CONDITIONS`, a value.
    pub field: Option<String>,
    pub op: Option<String>,
    pub value: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    /// The owner's time zone as minutes east of UTC (sent by app.js with the dates):
    /// the days asked are the owner's days. Absent: UTC days.
    pub tz: Option<String>,
    pub per_page: Option<String>,
    /// The core's opaque keyset cursor of this page (absent: the newest page).
    pub cursor: Option<String>,
    /// Cursors of the pages before this one, oldest first, `.`-separated (base64url
    /// never holds a dot), for the Previous link.
    pub back: Option<String>,
    pub done: Option<String>,
    /// `unfinished`: the unfinished responses' tab.
    pub show: Option<String>,
}

/// The operators of the inbox's condition on an answer: its name in the address, the
/// words shown, and the core's operator (what it applies to is the core's rule).
pub(crate) const CONDITIONS: [(&str, &str, pb::AnswerOperator); 6] = [
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

/// The input a mistake belongs to (its element id on the page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    Search,
    Condition,
    Value,
    Since,
    Until,
    PerPage,
}

impl Input {
    pub(crate) fn id(self) -> &'static str {
        match self {
            Self::Search => "q",
            Self::Condition => "op",
            Self::Value => "value",
            Self::Since => "since",
            Self::Until => "until",
            Self::PerPage => "per_page",
        }
    }
}

/// What to fix, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mistake {
    pub at: Input,
    pub text: String,
}

fn mistake(at: Input, text: impl Into<String>) -> Mistake {
    Mistake {
        at,
        text: text.into(),
    }
}

/// A condition on one field's answer, as asked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Condition {
    pub field: String,
    pub op: &'static str,
    pub value: String,
}

/// The search, the condition on an answer, the date filter and page size, checked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Filter {
    /// Search text, trimmed; the core checks it (and says what to fix).
    pub search: Option<String>,
    pub condition: Option<Condition>,
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    /// Minutes east of UTC of the zone the days are in (0: UTC).
    pub offset: i32,
    pub per_page: i32,
    /// The unfinished responses rather than the finished ones.
    pub unfinished: bool,
}

fn date(at: Input, name: &str, value: Option<&str>) -> Result<Option<NaiveDate>, Mistake> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map(Some)
            .map_err(|_| {
                mistake(
                    at,
                    format!("Enter the {name} date as a date such as 2026-01-31."),
                )
            }),
    }
}

impl Filter {
    pub(crate) fn parse(q: &InboxQuery) -> Result<Self, Mistake> {
        let since = date(Input::Since, "From", q.since.as_deref())?;
        let until = date(Input::Until, "To", q.until.as_deref())?;
        if let (Some(since), Some(until)) = (since, until)
            && since > until
        {
            return Err(mistake(
                Input::Until,
                "The To date must not be before the From date.",
            ));
        }
        let offset = crate::dashboard::layout::zone_offset(q.tz.as_deref()).ok_or_else(|| {
            mistake(
                Input::Since,
                "Your computer's time zone could not be read: reload the page and filter again.",
            )
        })?;
        let per_page = match q.per_page.as_deref().map(str::trim) {
            None | Some("") => PER_PAGE,
            Some(text) => text
                .parse::<i32>()
                .ok()
                .filter(|n| (1..=100).contains(n))
                .ok_or_else(|| {
                    mistake(
                        Input::PerPage,
                        "Rows per page must be a whole number from 1 to 100.",
                    )
                })?,
        };
        let search = q.q.as_deref().map(str::trim).filter(|t| !t.is_empty());
        let condition = match q.field.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            None => None,
            Some(field) => {
                let asked = q.op.as_deref().unwrap_or("eq");
                let (op, _, operator) = CONDITIONS
                    .iter()
                    .find(|(name, _, _)| *name == asked)
                    .ok_or_else(|| {
                        mistake(Input::Condition, "Choose a condition from the list.")
                    })?;
                let value = q.value.as_deref().unwrap_or("").trim().to_owned();
                let takes_value = !matches!(
                    operator,
                    pb::AnswerOperator::Answered | pb::AnswerOperator::NotAnswered
                );
                if takes_value && value.is_empty() {
                    return Err(mistake(
                        Input::Value,
                        "Give a value to compare the answer with.",
                    ));
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
            offset,
            per_page,
            unfinished: q.show.as_deref() == Some("unfinished"),
        })
    }

    /// Which responses the core lists: completed ones, or the unfinished.
    pub(crate) fn status(&self) -> pb::ResponseStatus {
        if self.unfinished {
            pb::ResponseStatus::Partial
        } else {
            pb::ResponseStatus::Unspecified
        }
    }

    /// The search and the condition as the core's filter; `value` is the condition's
    /// value as the core reads it (see `inbox::core_value`).
    pub(crate) fn core_filter(
        &self,
        value: impl Fn(&Condition) -> String,
    ) -> Option<pb::ResponseFilter> {
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
                    vec![value(c)]
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
    pub(crate) fn narrows(&self) -> bool {
        self.search.is_some()
            || self.condition.is_some()
            || self.since.is_some()
            || self.until.is_some()
    }

    /// The core's bounds (both exclusive): after the last microsecond before `since`,
    /// before midnight after `until`; the dates are days of the zone `offset` minutes
    /// east of UTC (its midnight is that much before UTC's), both included.
    pub(crate) fn bounds(
        &self,
    ) -> (
        Option<prost_types::Timestamp>,
        Option<prost_types::Timestamp>,
    ) {
        let midnight = |d: NaiveDate| {
            Utc.from_utc_datetime(&d.and_time(chrono::NaiveTime::MIN))
                - Duration::minutes(i64::from(self.offset))
        };
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
    pub(crate) fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        if self.unfinished {
            pairs.push(("show", "unfinished".to_owned()));
        }
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
        if self.offset != 0 && (self.since.is_some() || self.until.is_some()) {
            pairs.push(("tz", self.offset.to_string()));
        }
        if self.per_page != PER_PAGE {
            pairs.push(("per_page", self.per_page.to_string()));
        }
        pairs
    }
}

/// `base?pairs` (no `?` when there is nothing to add).
pub(crate) fn with_query(base: &str, pairs: &[(&str, String)]) -> String {
    let query = serde_urlencoded::to_string(pairs).unwrap_or_default();
    if query.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{query}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(since: &str, until: &str, per_page: &str) -> Result<Filter, Mistake> {
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
    fn dates_are_the_owners_days_when_the_zone_is_sent() {
        let filter = Filter::parse(&InboxQuery {
            since: Some("2026-01-31".into()),
            until: Some("2026-01-31".into()),
            tz: Some("60".into()),
            ..Default::default()
        })
        .expect("valid");
        let (since, until) = filter.bounds();
        // Midnight in a zone an hour east of UTC is 23:00 UTC the day before.
        assert_eq!(since.expect("since").seconds, 1_769_817_600 - 3_600 - 1);
        assert_eq!(
            until.expect("until").seconds,
            1_769_817_600 + 86_400 - 3_600
        );
        assert!(filter.pairs().contains(&("tz", "60".to_owned())));
        for bad in ["east", "900", "-841"] {
            let refused = Filter::parse(&InboxQuery {
                since: Some("2026-01-31".into()),
                tz: Some(bad.into()),
                ..Default::default()
            });
            assert!(refused.is_err_and(|e| e.at == Input::Since), "{bad}");
        }
    }

    #[test]
    fn bad_input_says_what_to_fix_beside_its_input() {
        assert!(
            parse("yesterday", "", "")
                .is_err_and(|e| e.at == Input::Since && e.text.contains("From"))
        );
        assert!(parse("", "2026-13-01", "").is_err_and(|e| e.at == Input::Until));
        assert!(parse("2026-02-02", "2026-02-01", "").is_err_and(|e| e.text.contains("before")));
        for bad in ["0", "101", "ten", "-1"] {
            assert!(
                parse("", "", bad).is_err_and(|e| e.at == Input::PerPage),
                "{bad}"
            );
        }
        assert_eq!(parse("", "", "100").map(|f| f.per_page), Ok(100));
        let no_value = Filter::parse(&InboxQuery {
            field: Some("f".into()),
            op: Some("gte".into()),
            ..Default::default()
        });
        assert!(no_value.is_err_and(|e| e.at == Input::Value));
    }
}

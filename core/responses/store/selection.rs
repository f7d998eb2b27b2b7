//! The responses a list, a count, an export or a summary reads: those of one form, in
//! a window, of some statuses, meeting a filter (`responses::filter`).
//!
//! The one place where a statement is put together from parts, because a filter's
//! conditions vary: every part is fixed text written in this file, and every value a
//! caller gave is a bound parameter, never text. Statements with a search or a
//! condition on answers are sent unprepared, so that PostgreSQL plans each one with its
//! values (the pattern decides between the trigram index and the keyset walk); the
//! others keep one prepared plan per connection, as the checked queries do.

use super::{Statuses, Window};
use crate::error::CoreError;
use crate::responses::filter::{Compare, Filter, Search, Source, Test};
use crate::responses::search;
use serde_json::Value;
use sqlx::postgres::PgArguments;
use sqlx::types::Json;
use sqlx::{Arguments, AssertSqlSafe, Encode, Postgres, Type};
use std::fmt::Write;
use uuid::Uuid;

/// Which responses a statement reads.
#[derive(Debug, Clone, Copy)]
pub struct Selection<'f> {
    pub form_id: Uuid,
    pub window: Window,
    pub statuses: Statuses,
    pub filter: &'f Filter,
}

/// A statement being written, and its bound values.
pub(super) struct Statement {
    text: String,
    args: PgArguments,
    bound: usize,
    failed: Option<sqlx::error::BoxDynError>,
    /// Planned with its values (a search or a condition on answers).
    unprepared: bool,
}

impl Statement {
    pub(super) fn new(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            args: PgArguments::default(),
            bound: 0,
            failed: None,
            unprepared: false,
        }
    }

    pub(super) fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Binds `value` as the next parameter, written in its place.
    pub(super) fn bind<T>(&mut self, value: T) -> &mut Self
    where
        T: for<'q> Encode<'q, Postgres> + Type<Postgres> + Send,
    {
        self.bound += 1;
        if let Err(e) = self.args.add(value) {
            self.failed.get_or_insert(e);
        }
        // Writing to a String does not fail.
        let _ = write!(self.text, "${}", self.bound);
        self
    }

    /// `SELECT <columns>` of `responses` (`r`), for the rows of a list.
    pub(super) fn query_as<O>(
        self,
    ) -> Result<sqlx::query::QueryAs<'static, Postgres, O, PgArguments>, CoreError>
    where
        O: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
    {
        if let Some(e) = self.failed {
            return Err(CoreError::Internal(format!("binding a parameter: {e}")));
        }
        Ok(sqlx::query_as_with(AssertSqlSafe(self.text), self.args).persistent(!self.unprepared))
    }

    pub(super) fn query_scalar<O>(
        self,
    ) -> Result<sqlx::query::QueryScalar<'static, Postgres, O, PgArguments>, CoreError>
    where
        (O,): for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
    {
        if let Some(e) = self.failed {
            return Err(CoreError::Internal(format!("binding a parameter: {e}")));
        }
        Ok(sqlx::query_scalar_with(AssertSqlSafe(self.text), self.args)
            .persistent(!self.unprepared))
    }
}

/// `text` as a LIKE pattern's literal part (the default escape is a backslash).
fn like_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Selection<'_> {
    /// Whether the rows come from `responses_with_partial` (which has `status` and
    /// `page`) rather than `responses`.
    pub(super) fn with_partial(&self) -> bool {
        self.statuses != Statuses::Completed
    }

    /// `, page` of a row: the partial's page, or none.
    pub(super) fn page_column(&self) -> &'static str {
        if self.with_partial() {
            "r.page"
        } else {
            "NULL::integer AS page"
        }
    }

    /// ` FROM ... r WHERE ...`: the form, the window, the statuses and the filter.
    pub(super) fn push_from(&self, s: &mut Statement) {
        s.push(if self.with_partial() {
            " FROM responses_with_partial r"
        } else {
            " FROM responses r"
        });
        s.push(" WHERE r.form_id = ").bind(self.form_id);
        s.push(" AND r.submitted_at > ").bind(self.window.since);
        s.push(" AND r.submitted_at < ").bind(self.window.until);
        if self.with_partial() {
            s.push(" AND r.status = ANY(")
                .bind(self.statuses.names())
                .push(")");
        }
        self.push_filter(s);
    }

    fn push_filter(&self, s: &mut Statement) {
        let f = self.filter;
        match &f.search {
            None => {}
            Some(search) if !f.search_options.is_empty() => {
                // The text, or one of the options whose label it finds.
                s.unprepared = true;
                s.push(" AND (r.search LIKE ").bind(pattern(search));
                for id in &f.search_options {
                    s.push(" OR r.search LIKE ")
                        .bind(format!("%\n{}\n%", like_literal(&search::fold(id))));
                }
                s.push(")");
            }
            Some(search) => {
                s.unprepared = true;
                s.push(" AND r.search LIKE ").bind(pattern(search));
            }
        }
        if !f.ids.is_empty() {
            s.push(" AND r.id = ANY(").bind(f.ids.clone()).push(")");
        }
        for c in &f.answers {
            s.unprepared = true;
            match &c.test {
                Test::Holds(objects) => {
                    let objects: Vec<Json<Value>> = objects.iter().cloned().map(Json).collect();
                    s.push(" AND r.answers @> ANY(")
                        .bind(objects)
                        .push("::jsonb[])");
                }
                Test::Is(text) => {
                    // The search text narrows it through the index; the answer decides.
                    push_whole_anywhere(s, text);
                    s.push(" AND forms_fold(r.answers ->> ")
                        .bind(c.field.clone())
                        .push(") = forms_fold(")
                        .bind(text.clone())
                        .push(")");
                }
                Test::Contains(text) => {
                    push_contains_anywhere(s, text);
                    s.push(" AND forms_fold(r.answers ->> ")
                        .bind(c.field.clone())
                        .push(") LIKE '%' || forms_fold(")
                        .bind(like_literal(text))
                        .push(") || '%'");
                }
                Test::Answered => {
                    s.push(" AND coalesce(r.answers -> ")
                        .bind(c.field.clone())
                        .push(", 'null') <> 'null'::jsonb");
                }
                Test::NotAnswered => {
                    s.push(" AND coalesce(r.answers -> ")
                        .bind(c.field.clone())
                        .push(", 'null') = 'null'::jsonb");
                }
                Test::Compare(compare, value) => {
                    // A fixed path: the field is chosen outside it, the value is a
                    // variable of it.
                    let path = match compare {
                        Compare::AtLeast => "'$ ? (@ >= $v)'",
                        Compare::AtMost => "'$ ? (@ <= $v)'",
                        Compare::Greater => "'$ ? (@ > $v)'",
                        Compare::Less => "'$ ? (@ < $v)'",
                    };
                    s.push(" AND jsonb_path_exists(r.answers -> ")
                        .bind(c.field.clone())
                        .push(", ")
                        .push(path)
                        .push(", jsonb_build_object('v', ")
                        .bind(Json(value.clone()))
                        .push("::jsonb))");
                }
            }
        }
        match f.source {
            None => {}
            Some(Source::Api) => {
                s.push(" AND r.metadata @> '{\"source\": \"api\"}'");
            }
            Some(Source::Form) => {
                s.push(" AND NOT r.metadata @> '{\"source\": \"api\"}'");
            }
        }
        for (column, value) in [
            ("device_type", &f.device_type),
            ("browser", &f.browser),
            ("os", &f.os),
            ("language", &f.language),
        ] {
            if let Some(value) = value {
                s.push(" AND lower(r.")
                    .push(column)
                    .push(") = lower(")
                    .bind(value.clone())
                    .push(")");
            }
        }
    }
}

/// The search text's pattern of a search: a part of some answer, or a whole answer
/// (between two newlines). The pattern is folded here, as the search text was
/// (`responses::search`), and bound whole, so that the planner sees it and weighs the
/// trigram index.
fn pattern(search: &Search) -> String {
    match search {
        Search::Part(text) => format!("%{}%", like_literal(&search::fold(text))),
        Search::Whole(text) => format!("%\n{}\n%", like_literal(&search::fold(text))),
    }
}

/// Some answer contains `text` (ignoring case and accents): the search text does.
fn push_contains_anywhere(s: &mut Statement, text: &str) {
    s.push(" AND r.search LIKE ")
        .bind(pattern(&Search::Part(text.to_owned())));
}

/// Some answer is `text` (ignoring case and accents): the search text holds it
/// between two newlines.
fn push_whole_anywhere(s: &mut Statement, text: &str) {
    s.push(" AND r.search LIKE ")
        .bind(pattern(&Search::Whole(text.to_owned())));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns_take_wildcards_literally() {
        assert_eq!(like_literal("50%_off\\"), "50\\%\\_off\\\\");
        assert_eq!(like_literal("Lovelace"), "Lovelace");
    }
}

//! The audit trail (`/app/audit`): who changed what in the account, when, from where
//! and how it ended, newest first, filtered by who (a key or session id), what (a
//! method), form and days, and paged by the trail's own order (an "Older entries"
//! link carries the cursor the core gave).

use super::layout::{self, Section};
use super::owner::Owner;
use axum::extract::Query;
use axum::response::Response;
use chrono::NaiveDate;
use forms::pb;
use maud::{Markup, html};
use serde::Deserialize;

/// Entries per page.
const PER_PAGE: i32 = 50;

/// The filters of the page, as the GET form sends them.
#[derive(Deserialize, Default)]
pub(crate) struct AuditQuery {
    #[serde(default)]
    actor: String,
    #[serde(default)]
    action: String,
    #[serde(default)]
    form: String,
    /// First day (YYYY-MM-DD, UTC), inclusive.
    #[serde(default)]
    from: String,
    /// Last day (YYYY-MM-DD, UTC), inclusive.
    #[serde(default)]
    to: String,
    #[serde(default)]
    cursor: String,
}

/// The start of `day` (UTC), or after it when `next`; None when empty or not a date.
fn day_start(day: &str, next: bool) -> Option<prost_types::Timestamp> {
    let date = NaiveDate::parse_from_str(day.trim(), "%Y-%m-%d").ok()?;
    let date = if next { date.succ_opt()? } else { date };
    Some(pb::convert::timestamp(date.and_hms_opt(0, 0, 0)?.and_utc()))
}

/// The address of the next page: the filters, and the cursor.
fn older_href(q: &AuditQuery, cursor: &str) -> String {
    let pairs = [
        ("actor", q.actor.as_str()),
        ("action", q.action.as_str()),
        ("form", q.form.as_str()),
        ("from", q.from.as_str()),
        ("to", q.to.as_str()),
        ("cursor", cursor),
    ];
    let query: Vec<String> = pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| {
            format!(
                "{k}={}",
                percent_encoding::utf8_percent_encode(v.trim(), percent_encoding::NON_ALPHANUMERIC)
            )
        })
        .collect();
    format!("/app/audit?{}", query.join("&"))
}

/// Who acted, as the page says it.
fn who(e: &pb::AuditEntry) -> Markup {
    html! {
        @match e.actor_kind.as_str() {
            "key" => { "API key " (short_id(&e.actor_key_id)) }
            "session" => { "Dashboard session " (short_id(&e.actor_session_id)) }
            "operator" => { "Operator" }
            // A sign-in names the session it opened; a refused one, nobody.
            _ => {
                @if e.actor_session_id.is_empty() { "Someone signing in" }
                @else { "Signed in: session " (short_id(&e.actor_session_id)) }
            }
        }
    }
}

/// An id as people tell ids apart, by its first eight characters, the whole in its
/// tooltip (and in the API's entries): a page of full UUIDs reads as noise.
fn short_id(id: &str) -> Markup {
    let head: String = id.chars().take(8).collect();
    html! {
        @if id.chars().count() > 8 { code title=(id) { (head) "…" } } @else { code { (id) } }
    }
}

/// `GET /app/audit`
pub(crate) async fn page(owner: Owner, Query(q): Query<AuditQuery>) -> Response {
    let request = pb::ListAuditEntriesRequest {
        limit: Some(PER_PAGE),
        cursor: q.cursor.trim().to_owned(),
        actor: q.actor.trim().to_owned(),
        action: q.action.trim().to_owned(),
        form_id: q.form.trim().to_owned(),
        since: day_start(&q.from, false),
        until: day_start(&q.to, true),
    };
    let listed = owner
        .state
        .audit()
        .list_audit_entries(owner.request(request))
        .await;
    let (listed, problem) = match listed {
        Ok(reply) => (reply.into_inner(), None),
        // A filter the core refuses (an id that is no UUID): said on the page.
        Err(status) if status.code() == tonic::Code::InvalidArgument => (
            pb::ListAuditEntriesResponse::default(),
            Some(status.message().to_owned()),
        ),
        Err(status) => return owner.failure(&status),
    };
    let body = html! {
        h1 { "Audit trail" }
        p { "Every change made in your account: who made it (an API key or a dashboard session, by id), what it changed (names only, never values), when, from which address, and how it ended." }
        (filters(&q))
        (layout::problem(problem.as_deref()))
        @if listed.entries.is_empty() {
            p class="muted" { "No entries match." }
        } @else {
            (table(&listed.entries))
        }
        @if !listed.next_cursor.is_empty() {
            p { a href=(older_href(&q, &listed.next_cursor)) { "Older entries" } }
        }
    };
    owner.page("Audit trail", Section::Audit, body)
}

fn filters(q: &AuditQuery) -> Markup {
    html! {
        form method="get" action="/app/audit" class="row list-filter audit-filter" role="search" aria-label="Filter the trail" {
            div {
                label for="actor" { "Who (key or session id)" }
                input id="actor" name="actor" type="text" value=(q.actor);
            }
            div {
                label for="action" { "What (e.g. UpdateForm)" }
                input id="action" name="action" type="text" value=(q.action);
            }
            div {
                label for="form" { "Form id" }
                input id="form" name="form" type="text" value=(q.form);
            }
            div {
                label for="from" { "From" }
                input id="from" name="from" type="date" value=(q.from);
            }
            div {
                label for="to" { "To" }
                input id="to" name="to" type="date" value=(q.to);
            }
            div { button type="submit" class="secondary" { "Filter" } }
        }
    }
}

fn table(entries: &[pb::AuditEntry]) -> Markup {
    html! {
        div class="table-wrap" tabindex="0" role="region" aria-label="Audit entries" {
            table {
                thead { tr {
                    th scope="col" { "When" }
                    th scope="col" { "Who" }
                    th scope="col" { "What" }
                    th scope="col" { "Target" }
                    th scope="col" { "Changed" }
                    th scope="col" { "From" }
                    th scope="col" { "Outcome" }
                } }
                tbody {
                    @for e in entries {
                        tr {
                            td { (layout::when(e.at.as_ref())) }
                            td { (who(e)) }
                            th scope="row" { (e.action) }
                            td { (e.target_kind) " " (short_id(&e.target_id)) }
                            td { (e.changed.join(", ")) }
                            td { (e.client_ip) br; span class="muted" { (e.user_agent) } }
                            td { span class={"badge " (e.outcome)} { (e.outcome) } }
                        }
                    }
                }
            }
        }
    }
}

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

/// An id as people tell ids apart, by its last eight characters, the whole in its
/// tooltip (and in the API's entries): a page of full UUIDs reads as noise, and ids
/// made in the same hour share their first characters (UUIDv7 starts with the time).
fn short_id(id: &str) -> Markup {
    let count = id.chars().count();
    let tail: String = id.chars().skip(count.saturating_sub(8)).collect();
    html! {
        @if count > 8 { code title=(id) { "…" (tail) } } @else { code { (id) } }
    }
}

/// What an entry did, in words: the sign-ins by how they were made, other methods
/// by their name spelt out ("UpdateForm": "Update form"; the dashboard's "Own" dropped).
fn what(action: &str) -> String {
    let fixed = match action {
        "RedeemSignInLink" => Some("Signed in with a link"),
        "FinishOidcSignIn" => Some("Signed in with OpenID Connect"),
        "SignInWithProviderCookie" => Some("Signed in with the provider's cookie"),
        "AcceptInvitation" => Some("Accepted an invitation"),
        "SwitchAccount" => Some("Switched to this account"),
        "EndSession" => Some("Signed out"),
        "CreateResponse" => Some("Submitted a response"),
        _ => None,
    };
    if let Some(words) = fixed {
        return words.to_owned();
    }
    let mut words: Vec<String> = Vec::new();
    for c in action.chars() {
        match words.last_mut() {
            Some(word) if !c.is_ascii_uppercase() => word.push(c),
            _ => words.push(c.to_ascii_lowercase().to_string()),
        }
    }
    words.retain(|w| w != "own");
    let mut text = words.join(" ");
    if let Some(first) = text.get(..1).map(str::to_ascii_uppercase) {
        text.replace_range(..1, &first);
    }
    text
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
    // The account's forms by title, for the filter and the targets (the first 100; a
    // form past them, or deleted, keeps its short id).
    let forms = owner
        .state
        .forms()
        .list_forms(owner.request(pb::ListFormsRequest {
            per_page: Some(100),
            ..Default::default()
        }))
        .await
        .map(|reply| reply.into_inner().forms)
        .unwrap_or_default();
    let body = html! {
        h1 { "Audit trail" }
        p { "Every change made in your account: who made it (an API key or a dashboard session, by id), what it changed (names only, never values), when, from which address, and how it ended." }
        (filters(&q, &forms))
        (layout::problem(problem.as_deref()))
        @if listed.entries.is_empty() {
            p class="muted" { "No entries match." }
        } @else {
            (table(&listed.entries, &forms))
        }
        @if !listed.next_cursor.is_empty() {
            p { a href=(older_href(&q, &listed.next_cursor)) { "Older entries" } }
        }
    };
    owner.page("Audit trail", Section::Audit, body)
}

fn filters(q: &AuditQuery, forms: &[pb::Form]) -> Markup {
    let chosen = q.form.trim();
    let unlisted = !chosen.is_empty() && !forms.iter().any(|f| f.id == chosen);
    html! {
        form method="get" action="/app/audit" class="row list-filter audit-filter" role="search" aria-label="Filter the trail" {
            div {
                label for="actor" { "Who (key or session id)" }
                input id="actor" name="actor" type="text" value=(q.actor);
            }
            div {
                label for="action" { "What (a method, e.g. UpdateForm)" }
                input id="action" name="action" type="text" value=(q.action);
            }
            div {
                label for="form" { "Form" }
                select id="form" name="form" {
                    option value="" { "Any form" }
                    @for form in forms {
                        option value=(form.id) selected[form.id == chosen] { (form.title) }
                    }
                    @if unlisted { option value=(chosen) selected { "The form chosen (deleted, or not among the first 100)" } }
                }
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

/// What an entry acted on: a form by its title when it is one of `forms`, else the
/// kind and the end of the id.
fn target(e: &pb::AuditEntry, forms: &[pb::Form]) -> Markup {
    let form = forms.iter().find(|f| f.id == e.target_id);
    html! {
        @if let (Some(form), "form") = (form, e.target_kind.as_str()) { "form “" (form.title) "”" }
        @else { (e.target_kind) " " (short_id(&e.target_id)) }
    }
}

fn table(entries: &[pb::AuditEntry], forms: &[pb::Form]) -> Markup {
    html! {
        (layout::table_in("audit-entries", "Audit entries", &["When", "Who", "What", "Target", "Changed", "From", "Outcome"], html! {
            @for e in entries {
                tr {
                    td data-label="When" { (layout::when(e.at.as_ref())) }
                    td data-label="Who" { (who(e)) }
                    th scope="row" data-label="What" { span title=(e.action) { (what(&e.action)) } }
                    td data-label="Target" { (target(e, forms)) }
                    td data-label="Changed" { (e.changed.join(", ")) }
                    td data-label="From" { (e.client_ip) br; span class="muted" { (e.user_agent) } }
                    td data-label="Outcome" { span class={"badge " (e.outcome)} { (e.outcome) } }
                }
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::what;

    #[test]
    fn methods_read_as_words() {
        assert_eq!(what("UpdateForm"), "Update form");
        assert_eq!(what("CreateOwnKey"), "Create key");
        assert_eq!(what("ChangeMemberRole"), "Change member role");
        assert_eq!(what("RedeemSignInLink"), "Signed in with a link");
        assert_eq!(what(""), "");
    }
}

//! API keys (`/app/keys`): the account's keys with their last use, creating one (its
//! secret shown once, on the reply to the POST, never in a URL), revoking one after a
//! confirmation page, and a key's usage over 90 days as a chart with its figures.

mod new_key;

use super::chart::{self, Day};
use super::layout::{self, Section, csrf, when};
use super::owner::{Owner, Posted, see_other};
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Utc;
use forms::pb;
use maud::{Markup, html};
use new_key::{NewKey, parse_new_key};
use serde::Deserialize;

/// Days of the usage chart.
const USAGE_DAYS: i32 = 90;

#[derive(Deserialize, Default)]
pub(crate) struct DoneQuery {
    done: Option<String>,
}

/// What `?done=` says after a change; nothing else is ever shown.
fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "revoked" => Some("The key was revoked: it no longer works anywhere."),
        _ => None,
    }
}

pub(super) const SCOPES: [(pb::Scope, &str, &str); 3] = [
    (
        pb::Scope::Read,
        "read",
        "Read: list and fetch forms, responses and webhooks",
    ),
    (
        pb::Scope::Write,
        "write",
        "Write: create and change forms and webhooks",
    ),
    (
        pb::Scope::Admin,
        "admin",
        "Admin: delete forms, responses and webhooks",
    ),
];

fn scope_names(scopes: &[i32]) -> String {
    let names: Vec<&str> = SCOPES
        .iter()
        .filter(|(scope, _, _)| scopes.contains(&(*scope as i32)))
        .map(|(_, name, _)| *name)
        .collect();
    if names.is_empty() {
        "usage only".to_owned()
    } else {
        names.join(", ")
    }
}

/// A key's state as a word: revoked, expired or active.
fn key_status(key: &pb::ApiKey) -> &'static str {
    let expired = key
        .expires_at
        .as_ref()
        .and_then(pb::convert::datetime)
        .is_some_and(|at| at <= Utc::now());
    if key.revoked_at.is_some() {
        "revoked"
    } else if expired {
        "expired"
    } else {
        "active"
    }
}

async fn own_keys(owner: &Owner) -> Result<Vec<pb::OwnKey>, Response> {
    owner
        .state
        .owner()
        .list_own_keys(owner.request(pb::ListOwnKeysRequest {}))
        .await
        .map(|r| r.into_inner().keys)
        .map_err(|status| owner.failure(&status))
}

/// The create form, with a problem to fix when a post was refused.
fn create_form(owner: &Owner, problem: Option<&str>) -> Markup {
    html! {
        section class="card" aria-labelledby="new-key-heading" {
            h2 id="new-key-heading" { "Create a key" }
            (layout::problem(problem))
            form method="post" action="/app/keys" {
                (csrf(&owner.session))
                div {
                    label for="key-label" { "Label " span class="muted" { "(optional)" } }
                    p class="muted hint" id="key-label-hint" { "To tell your keys apart, such as “Website” or “Nightly export”." }
                    input id="key-label" name="label" type="text" maxlength="100" aria-describedby="key-label-hint";
                }
                fieldset {
                    legend { "Scopes" }
                    p class="muted" id="scopes-hint" { "A key without scopes can only read its own usage." }
                    @for (_, name, label) in SCOPES {
                        div class="check" {
                            input type="checkbox" id={"scope-" (name)} name="scopes" value=(name) aria-describedby="scopes-hint";
                            " "
                            label for={"scope-" (name)} { (label) }
                        }
                    }
                }
                div {
                    label for="expires" { "Expiry date (optional)" }
                    p class="muted" id="expires-hint" { "The key stops working at the end of this day. Leave empty for a key that does not expire." }
                    p class="muted hint" id="expires-zone" data-day-zone-note { "Days in UTC." }
                    input id="expires" name="expires" type="date" aria-describedby="expires-hint expires-zone";
                    input type="hidden" name="tz" value="" data-day-zone;
                }
                div { button type="submit" { "Create key" } }
            }
        }
    }
}

/// `GET /app/keys`
pub(crate) async fn list(owner: Owner, Query(q): Query<DoneQuery>) -> Response {
    let keys = match own_keys(&owner).await {
        Ok(keys) => keys,
        Err(page) => return page,
    };
    page(&owner, &keys, done_text(q.done.as_deref()), None)
}

fn page(owner: &Owner, keys: &[pb::OwnKey], done: Option<&str>, problem: Option<&str>) -> Response {
    let body = html! {
        h1 { "API keys" }
        (layout::notice(done))
        p { "Keys let programs use the REST API in your account's name. Keep them secret." }
        (create_form(owner, problem))
        h2 { "Your keys" }
        @if keys.is_empty() {
            p class="muted" { "No keys yet." }
        } @else {
            (layout::table("Your keys", &["Key", "Scopes", "Created", "Last used", "Expires", "Status", "Actions"], html! {
                @for own in keys {
                    @if let Some(key) = &own.key {
                        @let status = key_status(key);
                        tr {
                            th scope="row" {
                                @if own.session_key { "Dashboard sessions" }
                                @else if let Some(label) = &own.label { (label) " " code class="muted" { (key.prefix) "…" } }
                                @else { code { (key.prefix) "…" } }
                            }
                            td { (scope_names(&key.scopes)) }
                            td { (when(key.created_at.as_ref())) }
                            td { (own.last_used_on.as_deref().unwrap_or("never")) }
                            td { @if key.expires_at.is_some() { (when(key.expires_at.as_ref())) } @else { "never" } }
                            td { span class={"badge " (status)} { (status) } }
                            td class="key-actions" {
                                a href={"/app/keys/" (key.id)} {
                                    "Usage" span class="visually-hidden" { " of " (label_of(own)) }
                                }
                                @if !own.session_key && status != "revoked" {
                                    " "
                                    a href={"/app/keys/" (key.id) "/revoke"} {
                                        "Revoke…" span class="visually-hidden" { " " (label_of(own)) }
                                    }
                                }
                            }
                        }
                    }
                }
            }))
            @if keys.iter().any(|k| k.session_key) {
                p class="muted" { "“Dashboard sessions” is the key your signed-in pages work under. Browsing the dashboard is not API usage and is not counted in its figures." }
            }
        }
    };
    let mut response = owner.page("API keys", Section::Keys, body);
    if problem.is_some() {
        *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    }
    response
}

fn label_of(own: &pb::OwnKey) -> String {
    match (&own.key, own.session_key) {
        (_, true) => "the dashboard sessions' key".to_owned(),
        (Some(_), false) if own.label.is_some() => {
            format!("key “{}”", own.label.as_deref().unwrap_or_default())
        }
        (Some(key), false) => format!("key {}", key.prefix),
        (None, false) => "key".to_owned(),
    }
}

/// `POST /app/keys`: the reply page shows the secret, once (it is in no URL and no
/// later page); nothing to redirect to, since a reload asks before posting again.
pub(crate) async fn create(owner: Owner, Posted { csrf, form }: Posted<NewKey>) -> Response {
    let request = match parse_new_key(&form) {
        Ok(request) => request,
        Err(problem) => {
            return match own_keys(&owner).await {
                Ok(keys) => page(&owner, &keys, None, Some(problem)),
                Err(page) => page,
            };
        }
    };
    let label = request.label.clone();
    let created = owner
        .state
        .owner()
        .create_own_key(owner.change(request, &csrf))
        .await;
    let created = match created {
        Ok(reply) => reply.into_inner(),
        Err(status) => return owner.failure(&status),
    };
    let scopes = created
        .key
        .as_ref()
        .map(|k| scope_names(&k.scopes))
        .unwrap_or_default();
    let body = html! {
        (layout::crumbs(&[("/app/keys", "API keys")], "New key"))
        h1 { "Your new key" }
        p class="error" role="alert" {
            strong { "Copy it now: it will not be shown again." }
            " Only a digest of it is kept; if you lose it, revoke it and create another."
        }
        div class="card" {
            h2 id="secret-heading" { "Secret key" }
            p { code id="new-key" class="secret" aria-labelledby="secret-heading" { (created.secret) } }
            p {
                button type="button" data-copy="new-key" { "Copy the key" }
                " "
                span id="new-key-copied" role="status" {}
            }
            dl class="facts" {
                @if let Some(label) = &label { dt { "Label" } dd { (label) } }
                dt { "Scopes" } dd { (scopes) }
                dt { "Expires" }
                dd { @if let Some(at) = created.key.as_ref().and_then(|k| k.expires_at.as_ref()) { (when(Some(at))) } @else { "never" } }
            }
        }
        p { a href="/app/keys" { "Back to your keys" } }
    };
    owner.page("Your new key", Section::Keys, body)
}

/// `GET /app/keys/{key_id}`: the key's requests and errors per day over 90 days.
pub(crate) async fn usage(owner: Owner, Path(key_id): Path<String>) -> Response {
    let usage = owner
        .state
        .owner()
        .get_own_key_usage(owner.request(pb::GetOwnKeyUsageRequest {
            key_id: key_id.clone(),
            days: Some(USAGE_DAYS),
        }))
        .await;
    let usage = match usage.map(|r| r.into_inner().usage) {
        Ok(Some(usage)) => usage,
        Ok(None) => return owner.failure(&tonic::Status::internal("no usage in the reply")),
        Err(status) => return owner.failure(&status),
    };
    let keys = match own_keys(&owner).await {
        Ok(keys) => keys,
        Err(page) => return page,
    };
    let own = keys
        .iter()
        .find(|k| k.key.as_ref().is_some_and(|k| k.id == key_id));
    let title = own.map_or_else(
        || "Key usage".to_owned(),
        |own| format!("Usage of {}", label_of(own)),
    );
    // The record is newest first; the chart reads left to right, oldest first.
    let days: Vec<Day<'_>> = usage
        .daily
        .iter()
        .rev()
        .map(|d| Day {
            day: &d.day,
            total: d.request_count,
            part: d.error_count,
        })
        .collect();
    let plural = |n: i64, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let summary = format!(
        "{} and {} in the last {} days",
        plural(usage.total_requests, "request", "requests"),
        plural(usage.total_errors, "error", "errors"),
        usage.period_days
    );
    let body = html! {
        (layout::crumbs(&[("/app/keys", "API keys")], &title))
        h1 { (title) }
        dl class="facts" {
            dt { "Rate limit" } dd { (usage.rate_limit_per_minute) " requests per minute" }
            dt { "Requests" } dd { (usage.total_requests) " in the last " (usage.period_days) " days" }
            dt { "Errors" } dd { (usage.total_errors) }
            @if let Some(key) = own.and_then(|o| o.key.as_ref()) {
                dt { "Status" } dd { (key_status(key)) }
            }
        }
        h2 { "Requests and errors per day" }
        p class="legend" aria-hidden="true" {
            span class="swatch requests" {} " Requests " span class="swatch errors" {} " Errors"
        }
        (chart::daily_bars(&days, &summary))
        details {
            summary { "The figures, day by day" }
            div class="table-wrap" tabindex="0" role="region" aria-label="Requests and errors per day" {
                table {
                    caption class="visually-hidden" { (summary) }
                    thead { tr {
                        th scope="col" { "Day (UTC)" }
                        th scope="col" class="num" { "Requests" }
                        th scope="col" class="num" { "Errors" }
                    } }
                    tbody {
                        @for d in &usage.daily {
                            tr {
                                th scope="row" { (d.day) }
                                td class="num" { (d.request_count) }
                                td class="num" { (d.error_count) }
                            }
                        }
                    }
                    tfoot { tr {
                        th scope="row" { "Total" }
                        td class="num" { (usage.total_requests) }
                        td class="num" { (usage.total_errors) }
                    } }
                }
            }
        }
    };
    owner.page(&title, Section::Keys, body)
}

/// `GET /app/keys/{key_id}/revoke`: are you sure? (works without script)
pub(crate) async fn confirm_revoke(owner: Owner, Path(key_id): Path<String>) -> Response {
    let keys = match own_keys(&owner).await {
        Ok(keys) => keys,
        Err(page) => return page,
    };
    let found = keys
        .iter()
        .find(|k| !k.session_key && k.key.as_ref().is_some_and(|k| k.id == key_id));
    let Some(key) = found.and_then(|k| k.key.as_ref()) else {
        return not_found(&owner);
    };
    let body = html! {
        (layout::crumbs(&[("/app/keys", "API keys")], "Revoke"))
        h1 { "Revoke key " code { (key.prefix) "…" } }
        p { "Programs using this key will be refused at once, on every instance. This cannot be undone." }
        form method="post" action={"/app/keys/" (key.id) "/revoke"} class="row" {
            (csrf(&owner.session))
            button type="submit" class="danger" { "Revoke the key" }
            a href="/app/keys" { "Cancel" }
        }
    };
    owner.page("Revoke a key", Section::Keys, body)
}

/// The 404 page of a key that is not the account's (or not revocable).
fn not_found(owner: &Owner) -> Response {
    let body = html! {
        h1 { "Not found" }
        p class="error" role="alert" { "There is no such key, or it belongs to another account." }
        p { a href="/app/keys" { "Back to your keys" } }
    };
    let mut response = owner.page("Not found", Section::Keys, body);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

/// `POST /app/keys/{key_id}/revoke`
pub(crate) async fn revoke(
    owner: Owner,
    Path(key_id): Path<String>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let revoked = owner
        .state
        .owner()
        .revoke_own_key(owner.change(pb::RevokeOwnKeyRequest { key_id }, &csrf))
        .await;
    match revoked {
        Ok(_) => see_other("/app/keys?done=revoked"),
        Err(status) => owner.failure(&status),
    }
}

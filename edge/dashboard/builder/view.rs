//! The page itself: the form's header and tabs, the question list with the preview
//! beside it, then the sections that fold (title and description, settings, status),
//! and, once published, the share panel. Also the title and description post.

use super::{View, after, form_id, is_published, settings_of, update};
use crate::dashboard::layout::{self, csrf, status_badge, when};
use crate::dashboard::owner::{Owner, Posted};
use crate::dashboard::share;
use crate::http::site::Origin;
use axum::extract::Path;
use axum::response::Response;
use chrono::Utc;
use forms::pb;
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::Value;

pub(super) fn render(owner: &Owner, form: &pb::Form, origin: &Origin, view: &View) -> Markup {
    let base = format!("/app/forms/{}", form.id);
    let closed = super::settings::closes_at(form).is_some_and(|at| at <= Utc::now());
    if !owner.may("editor") {
        return super::reading::render(form, origin, head(form, closed, html! {}));
    }
    html! {
        (head(form, closed, super::lifecycle::section(owner, form, &base, closed)))
        div id="builder-notices" {
            (layout::notice(view.notice))
            (layout::problem(view.problem))
        }
        div class="builder" id="builder" data-form=(base) {
            div class="builder-main" {
                (super::list::section(owner, form, &base, view))
                @if is_published(form) { (share_section(form, origin)) }
                div class="card folds" {
                    (details_section(owner, form, &base))
                    (super::settings::section(owner, form, &base, view.mail))
                    (super::languages::section(owner, form, &base, view))
                    (super::design::section(owner, form, &base, view))
                    (super::lifecycle::delete_fold(owner, form, &base))
                }
            }
            div class="builder-side" tabindex="0" role="region" aria-label="Preview, beside the questions" {
                (super::preview::preview_section(form))
            }
        }
    }
}

/// Above the tabs: the title, status, `actions` (publish, close…) and description.
pub(super) fn head(form: &pb::Form, closed: bool, actions: Markup) -> Markup {
    html! {
        (layout::crumbs(&[("/app/forms", "Forms")], &form.title))
        h1 { (form.title) }
        div class="form-head" {
            p class="form-status" {
                (status_badge(form.status))
                @if is_published(form) && closed { " " span class="badge closed" { "closed" } }
                span class="muted" { " Updated " (when(form.updated_at.as_ref())) }
            }
            (actions)
        }
        @if let Some(description) = &form.description { p class="description" { (description) } }
        (layout::form_tabs(&form.id, layout::FormTab::Builder))
    }
}

fn details_section(owner: &Owner, form: &pb::Form, base: &str) -> Markup {
    html! {
        details class="fold" id="details" {
            summary { h2 { "Title and description" } }
            form method="post" action={(base) "/details"} {
                (csrf(&owner.session))
                label for="d-title" { "Title" }
                input id="d-title" name="title" type="text" required maxlength="200" value=(form.title);
                label for="d-description" { "Description " span class="muted" { "(optional)" } }
                textarea id="d-description" name="description" maxlength="5000" {
                    (form.description.as_deref().unwrap_or(""))
                }
                div class="actions" { button type="submit" { "Save title and description" } }
            }
        }
    }
}

pub(super) fn share_section(form: &pb::Form, origin: &Origin) -> Markup {
    let url = origin.hosted_url(&form.short_id);
    let snippet = share::embed_snippet(&url, &form.title);
    // Endpoint mode is on while the form lists an origin.
    let endpoint = settings_of(form)
        .get("allowed_origins")
        .and_then(Value::as_array)
        .is_some_and(|list| !list.is_empty());
    let endpoint_html = endpoint.then(|| share::endpoint_snippet(&url, form));
    html! {
        section class="card share" aria-labelledby="share-h" id="share" {
            h2 id="share-h" { "Share" }
            label for="share-link" { "Link to the form" }
            div class="copy-row" {
                input id="share-link" type="text" readonly value=(url);
                button type="button" class="secondary" data-copy="share-link" { "Copy link" }
            }
            p id="share-link-copied" class="muted" role="status" {}
            p { a href=(url) target="_blank" rel="noopener" { "Open the form" span class="visually-hidden" { " (in a new tab)" } } }
            details class="fold-inner" {
                summary { "Embed it, or use your own HTML form" }
                label for="embed-code" { "Embed it in a web page" }
                textarea id="embed-code" class="code" readonly rows="3" { (snippet) }
                div class="actions" { button type="button" class="secondary" data-copy="embed-code" { "Copy embed code" } }
                p id="embed-code-copied" class="muted" role="status" {}
                @if let Some(snippet) = endpoint_html {
                    label for="endpoint-code" { "Or keep your own HTML form: post it here" }
                    p class="muted" id="endpoint-hint" { "Your site's origins are listed in the settings (allowed origins). Copy this form into your page and style it as you like; keep the names and the hidden input. It shows every question: the conditions that hide some of them are applied on our side, where an answer to a question that would have been hidden is set aside, so the browser only insists on questions asked whatever the answers are." }
                    textarea id="endpoint-code" class="code" readonly rows="12" aria-describedby="endpoint-hint" { (snippet) }
                    div class="actions" { button type="button" class="secondary" data-copy="endpoint-code" { "Copy form HTML" } }
                    p id="endpoint-code-copied" class="muted" role="status" {}
                }
                @if origin.0.is_some() {
                    @if let Some(qr) = share::qr_svg(&url, &format!("QR code of the link to {}", form.title)) {
                        figure class="qr-figure" {
                            (qr)
                            figcaption class="muted" { "Scan to open the form on a phone." }
                        }
                    }
                } @else {
                    p class="muted" { "The QR code needs the service's address, which this request did not carry." }
                }
            }
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct Details {
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
}

/// `POST /app/forms/{id}/details`: title and description (empty clears it).
pub(crate) async fn details(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<Details>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return owner.not_found();
    };
    let description = posted.description.trim();
    let form = pb::Form {
        id: id.clone(),
        title: posted.title.trim().to_owned(),
        description: (!description.is_empty()).then(|| description.to_owned()),
        ..Default::default()
    };
    let result = update(&owner, &csrf, form, &["title", "description"]).await;
    after(&owner, &id, &origin, result, "saved", "#details", None).await
}

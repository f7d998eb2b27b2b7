//! The builder as a viewer sees it: the form's questions one line each (kind, label,
//! "required", the condition in words, pages as dividers), the share panel and the
//! preview beside, and no control that changes the form. A viewer's role reads forms
//! and results; the core refuses their changes whatever a page sends, so offering the
//! editor's controls would only lead to refusals.

use super::kinds::{kind_label, kind_of, pages};
use super::{conditions, is_published};
use crate::http::site::Origin;
use forms::pb::{self, FieldKind};
use maud::{Markup, html};

pub(super) fn render(form: &pb::Form, origin: &Origin, head: Markup) -> Markup {
    let fields = &form.fields;
    let page_of = pages(fields);
    html! {
        (head)
        p class="notice" {
            "Your role is viewer: you can read this form and its results, and export them. "
            "Editors, admins and owners change it."
        }
        div class="builder" {
            div class="builder-main" {
                section class="card questions" aria-labelledby="questions-h" {
                    h2 id="questions-h" { "Questions" }
                    @if fields.is_empty() { p class="muted" { "No question yet." } }
                    ol class="question-list" {
                        @for (i, field) in fields.iter().enumerate() {
                            (line(form, field, page_of.get(i).copied().unwrap_or(1)))
                        }
                    }
                }
                @if is_published(form) { (super::view::share_section(form, origin)) }
            }
            div class="builder-side" tabindex="0" role="region" aria-label="Preview, beside the questions" {
                (super::preview::preview_section(form))
            }
        }
    }
}

/// One question's line, or a page's divider.
fn line(form: &pb::Form, field: &pb::FormField, page: usize) -> Markup {
    let is_page = field.is(FieldKind::PageBreak);
    let name = if field.label.is_empty() {
        "(no label)"
    } else {
        field.label.as_str()
    };
    html! {
        li class={"q" @if is_page { " q-page" }} {
            div class="q-line" {
                span class="q-icon" aria-hidden="true" { (kind_of(&field.r#type).map_or("?", |k| k.icon)) }
                @if is_page { span class="q-label" { "Page " (page) ": " (name) } }
                @else {
                    span class="q-label" { (name) }
                    span class="q-kind muted" { (kind_label(&field.r#type)) }
                    @if field.required { span class="q-required" { "required" } }
                }
            }
            @if !field.show_if.is_empty() {
                p class="q-when condition" {
                    @if is_page { "This page is shown only if " } @else { "Shown only if " }
                    (conditions::in_words(&field.show_if, &form.fields))
                    "."
                }
            }
        }
    }
}

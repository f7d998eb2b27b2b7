//! The form as a compact list of its questions, one line each: kind, number, label (a
//! link that opens it, `?edit=`), "required", the condition in words; page breaks as
//! dividers. Between lines, "Add a question here" opens the palette at that place
//! (`?add=`). Each line has Move up / Move down buttons: the keyboard's and no-script
//! way to reorder (the script adds dragging, which posts the whole order).

use super::kinds::{kind_label, kind_of, pages};
use super::{View, conditions, editor, palette};
use crate::dashboard::layout::csrf;
use crate::dashboard::owner::Owner;
use forms::pb::{self, FieldKind};
use maud::{Markup, html};

pub(super) fn section(owner: &Owner, form: &pb::Form, base: &str, view: &View) -> Markup {
    let fields = &form.fields;
    let page_of = pages(fields);
    let questions = fields
        .iter()
        .filter(|f| !f.is(FieldKind::PageBreak))
        .count();
    let add_at = view.add.filter(|at| *at < fields.len());
    html! {
        section class="card questions" aria-labelledby="questions-h" id="questions" {
            div class="questions-head" {
                h2 id="questions-h" { "Questions" }
                span class="muted" {
                    (questions) @if questions == 1 { " question" } @else { " questions" }
                    @if page_of.last().copied().unwrap_or(1) > 1 { ", " (page_of.last().copied().unwrap_or(1)) " pages" }
                }
            }
            @if fields.is_empty() {
                p class="muted" { "No question yet. Choose a kind below to add the first one." }
            } @else {
                p class="muted hint" id="reorder-hint" {
                    "Select a question to edit it. Move it with its arrows"
                    span class="drag-only" { ", or drag it by its handle" }
                    "."
                }
                // Page 1 has no break of its own unless the form starts with one.
                @if page_of.last().is_some_and(|p| *p > 1) && fields.first().is_some_and(|f| !f.is(FieldKind::PageBreak)) {
                    p class="page-divider" { "Page 1" }
                }
                ol class="question-list" id="question-list" data-order={(base) "/order"} aria-describedby="reorder-hint" {
                    @for i in 0..fields.len() {
                        @if add_at == Some(i) {
                            li class="q-palette" { (palette::palette(owner, base, Some(i), false)) }
                        }
                        (row(owner, form, base, view, i, page_of.get(i).copied().unwrap_or(1)))
                    }
                }
                (move_form(owner, base))
            }
        }
        @if add_at.is_none() { (palette::palette(owner, base, None, fields.is_empty())) }
    }
}

/// One question's line (and its editor when it is the one open).
fn row(owner: &Owner, form: &pb::Form, base: &str, view: &View, i: usize, page: usize) -> Markup {
    let fields = &form.fields;
    let Some(field) = fields.get(i) else {
        return html! {};
    };
    let fid = &field.id;
    let open = view.edit == Some(fid.as_str());
    let is_page = field.is(FieldKind::PageBreak);
    let icon = kind_of(&field.r#type).map_or("?", |k| k.icon);
    let name = if field.label.is_empty() {
        "(no label)"
    } else {
        field.label.as_str()
    };
    let last = fields.len().saturating_sub(1);
    html! {
        li id={"q-" (fid)} class={"q" @if is_page { " q-page" } @if open { " q-open" }} data-field=(fid) {
            a class="add-here" href={(base) "?add=" (i) "#palette"} { "Add a question here" span class="visually-hidden" { ", before “" (name) "”" } }
            div class="q-line" {
                span class="q-handle" aria-hidden="true" title="Drag to move" { "⠿" }
                span class="q-icon" aria-hidden="true" { (icon) }
                @if is_page {
                    a class="q-label" href={(base) "?edit=" (fid) "#q-" (fid)} aria-current=[open.then_some("true")] {
                        "Page " (page) ": " (name)
                    }
                } @else {
                    a class="q-label" href={(base) "?edit=" (fid) "#q-" (fid)} aria-current=[open.then_some("true")] {
                        (name)
                    }
                    span class="q-kind muted" { (kind_label(&field.r#type)) }
                    @if field.required { span class="q-required" { "required" } }
                }
                span class="q-moves" {
                    @if i > 0 { (move_button(base, fid, "up", "↑", &format!("Move “{name}” up"))) }
                    @if i < last { (move_button(base, fid, "down", "↓", &format!("Move “{name}” down"))) }
                }
            }
            @if !field.show_if.is_empty() {
                p class="q-when condition" {
                    @if is_page { "This page is shown only if " } @else { "Shown only if " }
                    (conditions::in_words(&field.show_if, fields))
                    "."
                }
            }
            @if open { (editor::editor(owner, form, base, i, view.when)) }
        }
    }
}

/// A move button: it submits the list's one move form (`move_form`) with its field and
/// direction, so that a line carries no form of its own.
fn move_button(base: &str, fid: &str, direction: &str, arrow: &str, label: &str) -> Markup {
    html! {
        button type="submit" form="move-form" class="secondary q-move" formaction={(base) "/fields/" (fid) "/move"}
            name="direction" value=(direction) aria-label=(label) title=(label) { (arrow) }
    }
}

/// The one form the move buttons submit (each with its own address and direction).
fn move_form(owner: &Owner, base: &str) -> Markup {
    html! {
        form id="move-form" method="post" action={(base) "/order"} data-builder {
            (csrf(&owner.session))
        }
    }
}

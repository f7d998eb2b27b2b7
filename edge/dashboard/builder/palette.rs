//! The palette: a new question's label, "required", and one button per kind of
//! question; the button pressed adds the question, at the place the palette was opened
//! at (`position`) or at the end. What a kind takes besides (options, bounds...) is set
//! in its editor, which opens on the new question.

use super::kinds::KINDS;
use crate::dashboard::layout::csrf;
use crate::dashboard::owner::Owner;
use maud::{Markup, html};

/// `first`: the form has no question yet, so each kind says what it is for.
pub(super) fn palette(owner: &Owner, base: &str, position: Option<usize>, first: bool) -> Markup {
    html! {
        section class="card palette" id="palette" aria-labelledby="palette-h" {
            form method="post" action={(base) "/fields"} data-builder id="add" {
                (csrf(&owner.session))
                @if let Some(at) = position { input type="hidden" name="position" value=(at); }
                div class="palette-label" {
                    div class="grow" {
                        h2 id="palette-h" {
                            label for="new-label" {
                                "Add a question"
                                @if let Some(at) = position { " here" span class="visually-hidden" { ", as question " (at + 1) } }
                            }
                        }
                        input id="new-label" name="label" type="text" required maxlength="500" placeholder="What would you like to ask?";
                    }
                    label class="inline" {
                        input type="checkbox" name="required" value="on";
                        "Required"
                    }
                }
                fieldset class="kinds" {
                    legend { "Then choose its kind to add it" }
                    div class="kind-grid" {
                        @for kind in KINDS {
                            button type="submit" name="kind" value=(kind.name()) class="kind" title=(kind.hint) {
                                span class="k-icon" aria-hidden="true" { (kind.icon) }
                                span class="k-text" {
                                    span class="k-name" { (kind.label) }
                                    @if first { span class="k-hint" { (kind.hint) } }
                                }
                            }
                        }
                    }
                }
                p class="save-state muted" role="status" data-save-state {}
                @if position.is_some() {
                    p { a href=(base) { "Cancel" } }
                }
            }
        }
    }
}

//! The events a webhook may listen to, each with a name in words and one plain sentence
//! saying when it is sent; the fields of a subscription (create and edit).
//!
//! `quiz.completed` is offered only on a form that scores answers (a question with a
//! correct answer): on any other it would never be sent. A webhook that already lists
//! it keeps it (the box stays, ticked), so that saving never drops it silently.

use forms::pb;
use maud::{Markup, html};

/// An event: its name on the wire, in words, and when it is sent.
struct Event {
    name: &'static str,
    title: &'static str,
    when: &'static str,
}

/// The events a subscription may list (`webhook.test` is not one: it is only sent by
/// hand, from the webhook's page), in the core's order.
const EVENTS: &[Event] = &[
    Event {
        name: "form.submitted",
        title: "New response",
        when: "Sent each time someone sends the form, or a response is added through the API, with the answers.",
    },
    Event {
        name: "response.received",
        title: "New response (second name)",
        when: "The same event under another name, for receivers built for it: choose this one or “New response”, not both, or each response arrives twice.",
    },
    Event {
        name: "form.updated",
        title: "Form changed",
        when: "Sent when the form's questions or settings are changed.",
    },
    Event {
        name: "form.published",
        title: "Form published",
        when: "Sent when the form is published and starts taking responses.",
    },
    Event {
        name: "form.deleted",
        title: "Form deleted",
        when: "Sent when the form is deleted for good.",
    },
    Event {
        name: "quiz.completed",
        title: "Quiz finished",
        when: "Sent when someone finishes the quiz, with their score.",
    },
];

/// The quiz's event, which needs a form that scores answers.
const QUIZ: &str = "quiz.completed";

/// Whether the form scores answers: a question has a correct answer.
pub(super) fn has_quiz(form: &pb::Form) -> bool {
    form.fields.iter().any(|f| f.correct_answer.is_some())
}

/// The test event, sent by hand from the webhook's page (never listed).
const TEST: Event = Event {
    name: "webhook.test",
    title: "Test event",
    when: "Sent when you press “Send test event”.",
};

fn event_of(name: &str) -> Option<&'static Event> {
    EVENTS.iter().chain([&TEST]).find(|e| e.name == name)
}

/// A subscription's events in words, with the name the receiver sees beside each.
pub(super) fn words(events: &[String]) -> Markup {
    html! {
        @for (i, name) in events.iter().enumerate() {
            @if i > 0 { ", " }
            @match event_of(name) {
                Some(event) => { (event.title) " " span class="muted" { "(" code { (name) } ")" } }
                None => code { (name) },
            }
        }
    }
}

/// The fields of a subscription, for creating and for editing (`prefix` keeps ids
/// unique on a page); `quiz`: whether the form scores answers.
pub(super) fn hook_fields(
    prefix: &str,
    name: &str,
    url: &str,
    events: &[String],
    quiz: bool,
) -> Markup {
    let listed = |event: &str| events.iter().any(|e| e == event);
    html! {
        div {
            label for={(prefix) "-name"} { "Name" }
            input id={(prefix) "-name"} name="name" type="text" required maxlength="100" value=(name);
        }
        div {
            label for={(prefix) "-url"} { "Receiver URL" }
            input id={(prefix) "-url"} name="url" type="url" required inputmode="url"
                aria-describedby={(prefix) "-url-hint"} value=(url);
            p id={(prefix) "-url-hint"} class="muted" { "A public HTTPS address that accepts POST requests." }
        }
        fieldset class="events" {
            legend { "Send when" }
            @for (i, event) in EVENTS.iter().enumerate() {
                @if event.name != QUIZ || quiz || listed(QUIZ) {
                    div class="check event" {
                        input id={(prefix) "-event-" (i)} name="events" type="checkbox" value=(event.name)
                            aria-describedby={(prefix) "-event-" (i) "-when"} checked[listed(event.name)];
                        label for={(prefix) "-event-" (i)} {
                            (event.title) " " span class="muted" { "(" code { (event.name) } ")" }
                        }
                        p class="muted event-when" id={(prefix) "-event-" (i) "-when"} { (event.when) }
                    }
                }
            }
            @if !quiz && !listed(QUIZ) {
                p class="muted" { "“Quiz finished” is offered once a question of this form has a correct answer." }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_events_are_the_cores() {
        let names: Vec<&str> = EVENTS.iter().map(|e| e.name).collect();
        assert_eq!(names, pb::WEBHOOK_EVENTS);
    }

    #[test]
    fn the_quiz_event_needs_a_quiz_unless_already_listed() {
        let page = |events: &[String], quiz| hook_fields("t", "", "", events, quiz).into_string();
        assert!(!page(&[], false).contains(r#"value="quiz.completed""#));
        assert!(page(&[], true).contains(r#"value="quiz.completed""#));
        let listed = page(&[QUIZ.to_owned()], false);
        assert!(
            listed.contains(r#"value="quiz.completed" aria-describedby="t-event-5-when" checked"#),
            "{listed}"
        );
    }
}

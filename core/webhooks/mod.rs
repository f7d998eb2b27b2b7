//! Webhooks: subscriptions, the events they receive (written to the outbox in the
//! transaction of the change that causes them), and their signed delivery, one of the
//! kinds of message `crate::outbox` carries.

pub(crate) mod delivery;
pub(crate) mod outbox;
pub(crate) mod service;
pub(crate) mod signing;
pub mod store;
pub(crate) mod target;

use crate::error::CoreError;

/// Event names a subscription may list (SPEC Events).
pub const EVENTS: &[&str] = &[
    "form.submitted",
    "response.received",
    "form.updated",
    "form.published",
    "form.deleted",
    "quiz.completed",
];

pub fn check_name(name: &str) -> Result<(), CoreError> {
    let n = name.trim().chars().count();
    if n == 0 || name.chars().count() > 100 {
        return Err(CoreError::validation("name must be 1 to 100 characters"));
    }
    Ok(())
}

/// Validates and de-duplicates event names.
pub fn check_events(events: &[String]) -> Result<Vec<String>, CoreError> {
    if events.is_empty() {
        return Err(CoreError::Validation(format!(
            "events must list one or more of {}",
            EVENTS.join(", ")
        )));
    }
    let mut out: Vec<String> = Vec::new();
    for event in events {
        if !EVENTS.contains(&event.as_str()) {
            return Err(CoreError::Validation(format!(
                "events: {event:?} is not an event; expected one of {}",
                EVENTS.join(", ")
            )));
        }
        if !out.contains(event) {
            out.push(event.clone());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_events() {
        assert!(check_name("").is_err() && check_name(&"x".repeat(101)).is_err());
        assert!(check_name("CRM").is_ok());
        assert!(check_events(&[]).is_err());
        assert!(check_events(&["form.created".into()]).is_err());
        let events =
            check_events(&["form.submitted".into(), "form.submitted".into()]).expect("valid");
        assert_eq!(events, ["form.submitted"]);
    }
}

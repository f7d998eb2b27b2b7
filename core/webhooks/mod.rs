//! Webhooks: subscriptions, the events they receive (written to an outbox in the
//! transaction of the change that causes them), and their durable, signed delivery.

pub mod delivery;
pub mod hygiene;
pub mod outbox;
pub mod service;
pub mod signing;
pub mod slots;
pub mod store;
pub mod target;

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

/// Where a delivery stands. Stored in `deliveries.status` (TEXT) by its lowercase name;
/// a name this build does not know is an error when read, never silently another state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum DeliveryStatus {
    /// Due now or at `next_attempt_at`.
    Pending,
    Succeeded,
    /// Retries used up; an operator may retry it.
    Failed,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }
}

impl std::fmt::Display for DeliveryStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Retries after a failed delivery (SPEC: 3).
pub const MAX_RETRIES: i32 = 3;

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

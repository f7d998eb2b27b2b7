//! The core's refusals of a webhook in the page's words: which box to fix and how,
//! never the API's field names or the list of event names.

/// `message`, a VALIDATION_ERROR of WebhooksService or OwnerService, for a person.
pub(super) fn humane(message: &str) -> String {
    let text = message.trim();
    if text.starts_with("events must list") {
        return "Tick at least one event to send.".to_owned();
    }
    if text.starts_with("events:") {
        return "Tick the events to send from the list.".to_owned();
    }
    if text.starts_with("name must be") {
        return "Give the webhook a name, of at most 100 characters.".to_owned();
    }
    if text.starts_with("a form has at most") {
        return "This form has as many webhooks as a form may have: delete one first.".to_owned();
    }
    if let Some(why) = text.strip_prefix("url ") {
        let fix = if why.starts_with("must use https") || why.starts_with("must be an absolute") {
            "must be a full address starting with https://, such as https://example.com/hooks."
        } else if why.starts_with("must resolve to public") {
            "must be reachable on the public internet, not a local or private network address."
        } else if why.starts_with("must not contain credentials") {
            "must not contain a user name or password."
        } else if why.starts_with("must have a host") {
            "needs a host name, such as example.com."
        } else if why.starts_with("must be at most") {
            "is too long: 2,048 characters at most."
        } else {
            return format!("The receiver URL {why}");
        };
        return format!("The receiver URL {fix}");
    }
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "The webhook could not be saved.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::humane;

    #[test]
    fn refusals_name_the_box_in_words() {
        assert_eq!(
            humane("url must use https"),
            "The receiver URL must be a full address starting with https://, such as https://example.com/hooks."
        );
        let events = humane("events must list one or more of form.submitted, quiz.completed");
        assert!(!events.contains("form.submitted"), "{events}");
        assert!(
            humane("url must resolve to public addresses only (not loopback)")
                .contains("public internet")
        );
    }
}

//! What is wrong with one answer, twice: in English words (the API's message, which
//! SPEC fixes) and as a stable reason with its arguments, so that a page can say it in
//! the respondent's language without reading the English back.

use std::fmt;

/// One answer's problem: `reason` is a stable name (`required`, `too-long`…), `args` the
/// values its sentence needs (`max` = `1000`), `text` the English words after the
/// field's label ("must be at most 1000 characters").
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub reason: &'static str,
    pub args: Vec<(&'static str, String)>,
    pub text: String,
}

impl Problem {
    pub fn new(reason: &'static str, text: impl Into<String>) -> Self {
        Self {
            reason,
            args: Vec::new(),
            text: text.into(),
        }
    }

    /// The problem with one more argument for its translations.
    #[must_use]
    pub fn arg(mut self, name: &'static str, value: impl ToString) -> Self {
        self.args.push((name, value.to_string()));
        self
    }

    /// The arguments as one urlencoded string (`max=1000`), the way they travel in an
    /// error's metadata.
    pub fn encoded_args(&self) -> String {
        serde_urlencoded::to_string(&self.args).unwrap_or_default()
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_reason_travel_apart() {
        let p = Problem::new("too-long", "must be at most 5 characters").arg("max", 5);
        assert_eq!(p.to_string(), "must be at most 5 characters");
        assert_eq!(p.encoded_args(), "max=5");
    }
}

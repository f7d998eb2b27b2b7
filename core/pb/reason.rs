//! `ErrorReason` as it travels: the `google.rpc.ErrorInfo` reason string is the value's
//! name without its `ERROR_REASON_` prefix (`NOT_FOUND`), the SPEC error code, so that
//! clients that read strings keep reading the same ones.

use super::ErrorReason;

/// The prefix buf's lint rules put on every value name.
const PREFIX: &str = "ERROR_REASON_";

impl ErrorReason {
    /// The code sent as `ErrorInfo.reason` and in the REST envelope, e.g. `NOT_FOUND`.
    pub fn code(self) -> &'static str {
        let name = self.as_str_name();
        name.strip_prefix(PREFIX).unwrap_or(name)
    }

    /// The reason a code names; `None` for a string that names none (a newer server's
    /// reason, or not ours) and for `UNSPECIFIED`, which is never sent.
    pub fn from_code(code: &str) -> Option<Self> {
        Self::from_str_name(&format!("{PREFIX}{code}")).filter(|r| *r != Self::Unspecified)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_without_the_prefix() {
        assert_eq!(ErrorReason::NotFound.code(), "NOT_FOUND");
        assert_eq!(ErrorReason::ValidationError.code(), "VALIDATION_ERROR");
        assert_eq!(
            ErrorReason::from_code("RESPONSE_LIMIT_REACHED"),
            Some(ErrorReason::ResponseLimitReached)
        );
        assert_eq!(ErrorReason::from_code("UNSPECIFIED"), None);
        assert_eq!(ErrorReason::from_code("ERROR_REASON_NOT_FOUND"), None);
        assert_eq!(ErrorReason::from_code("not_found"), None);
        assert_eq!(ErrorReason::from_code(""), None);
    }
}

//! The form that makes a key, read: its scopes, its label, and the day it expires,
//! which ends at midnight where its owner is (the page's script sends the zone).

use super::SCOPES;
use crate::dashboard::layout;
use chrono::{Days, NaiveDate, Utc};
use forms::pb;
use serde::Deserialize;

#[derive(Deserialize)]
pub(crate) struct NewKey {
    /// A label to tell the key apart; optional.
    #[serde(default)]
    label: String,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    expires: String,
    /// Minutes east of UTC of the owner's computer, sent by the page's script: the day
    /// ends at their midnight.
    #[serde(default)]
    tz: String,
}

/// What a posted create form asks for, or what to fix.
pub(super) fn parse_new_key(form: &NewKey) -> Result<pb::CreateOwnKeyRequest, &'static str> {
    let mut scopes = Vec::new();
    for name in &form.scopes {
        let scope = SCOPES
            .iter()
            .find(|(_, n, _)| n == name)
            .map(|(scope, _, _)| *scope as i32)
            .ok_or("Choose scopes among read, write and admin.")?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    let expires = form.expires.trim();
    let expires_at = if expires.is_empty() {
        None
    } else {
        let day = NaiveDate::parse_from_str(expires, "%Y-%m-%d")
            .map_err(|_| "Enter the expiry date as a date (YYYY-MM-DD), or leave it empty.")?;
        let offset =
            chrono::Duration::minutes(i64::from(layout::zone_offset(Some(&form.tz)).ok_or(
                "Your computer's time zone could not be read: reload the page and try again.",
            )?));
        if day < (Utc::now() + offset).date_naive() {
            return Err("The expiry date must be today or later.");
        }
        // The end of that day where the owner is: the first moment of the next.
        let end = day
            .checked_add_days(Days::new(1))
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .ok_or("The expiry date is too far away.")?;
        Some(pb::convert::timestamp(end.and_utc() - offset))
    };
    let label = form.label.trim();
    if label.chars().count() > 100 {
        return Err("Give the key a shorter label: 100 characters at most.");
    }
    Ok(pb::CreateOwnKeyRequest {
        scopes,
        expires_at,
        label: Some(label.to_owned()).filter(|l| !l.is_empty()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_form_is_read_or_says_what_to_fix() {
        let form = |scopes: &[&str], expires: &str| NewKey {
            label: String::new(),
            scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
            expires: expires.to_owned(),
            tz: String::new(),
        };
        let ok = parse_new_key(&form(&["read", "write", "read"], "")).expect("valid");
        assert_eq!(
            ok.scopes,
            vec![pb::Scope::Read as i32, pb::Scope::Write as i32]
        );
        assert!(ok.expires_at.is_none());
        let next_year = (Utc::now().date_naive() + Days::new(365))
            .format("%Y-%m-%d")
            .to_string();
        assert!(
            parse_new_key(&form(&[], &next_year))
                .expect("valid")
                .expires_at
                .is_some()
        );
        // Typed in Berlin in summer (UTC+2), the day ends at 22:00 UTC; without a zone
        // sent (no script), at midnight UTC, as the page then says.
        let in_berlin = NewKey {
            tz: "120".into(),
            ..form(&[], "2099-07-01")
        };
        let end = |key: &NewKey| {
            parse_new_key(key)
                .expect("valid")
                .expires_at
                .map(|t| t.seconds)
        };
        let midnight = chrono::DateTime::parse_from_rfc3339("2099-07-02T00:00:00Z")
            .expect("time")
            .timestamp();
        assert_eq!(end(&in_berlin), Some(midnight - 2 * 3600));
        assert_eq!(end(&form(&[], "2099-07-01")), Some(midnight));
        let nowhere = NewKey {
            tz: "5000".into(),
            ..form(&[], "2099-07-01")
        };
        assert!(parse_new_key(&nowhere).is_err());
        assert!(parse_new_key(&form(&["root"], "")).is_err());
        assert!(parse_new_key(&form(&[], "2001-01-01")).is_err());
        assert!(parse_new_key(&form(&[], "tomorrow")).is_err());
    }
}

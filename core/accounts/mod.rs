//! Accounts, their plans, and the API keys that act for them.

pub(crate) mod keys;
pub(crate) mod service;
pub mod sessions;
pub mod store;

use crate::error::CoreError;
use std::{fmt, str::FromStr};

/// Plan of an account created with its first key when the request names none.
pub const NEW_ACCOUNT_PLAN: Plan = Plan::Pro;

/// An owner's notification address: one mailbox address (`local@domain`), as SMTP
/// takes it, no display name and nothing that could add a header.
pub fn check_email(email: &str) -> Result<(), CoreError> {
    let ok = email.len() <= 254
        && !email.chars().any(|c| c.is_control() || c.is_whitespace())
        && email.parse::<lettre::Address>().is_ok();
    if ok {
        Ok(())
    } else {
        Err(CoreError::Validation(format!(
            "email must be an address such as owner@example.com, got {email:?}"
        )))
    }
}

/// Commercial plan of an account. Stored in `accounts.plan` (TEXT) and shown in JSON by
/// its lowercase name; a name this build does not know is an error when read, never
/// silently another plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum Plan {
    Free,
    Pro,
    Enterprise,
}

impl Plan {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Free => "free",
            Self::Pro => "pro",
            Self::Enterprise => "enterprise",
        }
    }

    /// Whether keys of this plan may use the API at all.
    pub fn has_api_access(self) -> bool {
        !matches!(self, Self::Free)
    }
}

impl FromStr for Plan {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, CoreError> {
        match s {
            "free" => Ok(Self::Free),
            "pro" => Ok(Self::Pro),
            "enterprise" => Ok(Self::Enterprise),
            other => Err(CoreError::validation(format!(
                "unknown plan {other:?}; expected free, pro or enterprise"
            ))),
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A permission of a key. Scopes are ordered: admin includes write, write includes read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Read,
    Write,
    Admin,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Admin => "admin",
        }
    }
}

impl FromStr for Scope {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, CoreError> {
        match s {
            "read" => Ok(Self::Read),
            "write" => Ok(Self::Write),
            "admin" => Ok(Self::Admin),
            other => Err(CoreError::validation(format!(
                "unknown scope {other:?}; expected read, write or admin"
            ))),
        }
    }
}

/// The scopes granted to a key.
#[derive(Debug, Clone, Default)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    pub fn new(scopes: impl IntoIterator<Item = Scope>) -> Self {
        let mut v: Vec<Scope> = scopes.into_iter().collect();
        v.sort();
        v.dedup();
        Self(v)
    }

    /// Whether a granted scope covers `need` (a higher scope includes the lower ones).
    pub fn allows(&self, need: Scope) -> bool {
        self.0.iter().any(|granted| *granted >= need)
    }

    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        self.0.iter().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Names as stored in the database.
    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|s| s.as_str().to_owned()).collect()
    }

    /// Parses stored names, ignoring unknown ones (never grants more than stored).
    pub fn from_names(names: &[String]) -> Self {
        Self::new(names.iter().filter_map(|n| n.parse().ok()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn higher_scopes_include_lower_ones() {
        let admin = Scopes::new([Scope::Admin]);
        assert!(
            admin.allows(Scope::Read) && admin.allows(Scope::Write) && admin.allows(Scope::Admin)
        );
        let write = Scopes::new([Scope::Write]);
        assert!(write.allows(Scope::Read) && !write.allows(Scope::Admin));
        let read = Scopes::new([Scope::Read]);
        assert!(!read.allows(Scope::Write));
    }
}

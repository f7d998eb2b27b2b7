//! The audit trail (issue 33 §2): who changed what, when, from where, and how it ended.
//!
//! Every change calls [`record`] inside its own transaction, so the entry commits (or
//! rolls back) with the change. Entries are chained per account: each carries the
//! SHA-256 of its canonical encoding and of the entry before (`hash`), and a change
//! locks only its account's head row, so no tenant waits for another's writes. Actions
//! that name no account (an operator's, a failed sign-in of nobody known) form the
//! instance's chain, under the nil UUID. `verify` walks every chain; `retention`
//! purges the oldest entries and moves the chain's base so that the rest still verifies.
//!
//! What an entry holds is names and ids only: the method, its target's ids, the names
//! of the changed properties. Never answers, secrets or tokens: no caller of `record`
//! can pass a value, only `&'static str` property names.

mod actor;
pub(crate) mod hash;
pub(crate) mod retention;
pub(crate) mod service;
pub(crate) mod store;
pub(crate) mod verify;

pub(crate) use actor::Actor;

use crate::error::CoreError;
use sqlx::PgConnection;
use uuid::Uuid;

/// How a recorded action ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The change was made (recorded as "ok").
    Done,
    /// Refused (validation, a wrong credential): nothing changed.
    Refused,
}

impl Outcome {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Done => "ok",
            Self::Refused => "refused",
        }
    }
}

/// What an action was done to: a kind, its id, and the form it belongs to (so that the
/// trail can be filtered by form).
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub kind: &'static str,
    pub id: String,
    pub form_id: Option<Uuid>,
}

impl Target {
    pub(crate) fn form(id: Uuid) -> Self {
        Self {
            kind: "form",
            id: id.to_string(),
            form_id: Some(id),
        }
    }

    pub(crate) fn response(form_id: Uuid, id: Uuid) -> Self {
        Self {
            kind: "response",
            id: id.to_string(),
            form_id: Some(form_id),
        }
    }

    pub(crate) fn key(id: Uuid) -> Self {
        Self::other("key", id)
    }

    pub(crate) fn webhook(id: Uuid, form_id: Option<Uuid>) -> Self {
        Self {
            kind: "webhook",
            id: id.to_string(),
            form_id,
        }
    }

    pub(crate) fn delivery(id: Uuid) -> Self {
        Self::other("delivery", id)
    }

    pub(crate) fn account(id: Uuid) -> Self {
        Self::other("account", id)
    }

    pub(crate) fn member(person_id: Uuid) -> Self {
        Self::other("member", person_id)
    }

    pub(crate) fn invitation(id: Uuid) -> Self {
        Self::other("invitation", id)
    }

    pub(crate) fn session(id: Uuid) -> Self {
        Self::other("session", id)
    }

    /// A sign-in attempt that found no account or session to name.
    pub(crate) fn nothing() -> Self {
        Self {
            kind: "none",
            id: String::new(),
            form_id: None,
        }
    }

    fn other(kind: &'static str, id: Uuid) -> Self {
        Self {
            kind,
            id: id.to_string(),
            form_id: None,
        }
    }
}

/// Appends one entry to the chain of `actor`'s account (the instance's chain when it
/// has none), in the caller's transaction: the entry commits with the change, or not at
/// all. Locks the chain's head row until that transaction ends.
pub(crate) async fn record(
    tx: &mut PgConnection,
    actor: &Actor,
    action: &'static str,
    target: &Target,
    changed: &[&'static str],
    outcome: Outcome,
) -> Result<(), CoreError> {
    let entry = store::NewEntry {
        account_id: actor.account_id,
        actor_kind: actor.kind.as_str(),
        actor_key_id: actor.key_id,
        actor_session_id: actor.session_id,
        actor_member_id: actor.member_id,
        client_ip: &actor.client_ip,
        user_agent: &actor.user_agent,
        action,
        target,
        changed,
        outcome: outcome.as_str(),
    };
    store::append(tx, &entry).await
}

/// Records an action in a short transaction of its own: for what changes nothing in
/// the database (a refused sign-in) or changes it outside a transaction of ours.
pub(crate) async fn record_alone(
    pool: &sqlx::PgPool,
    actor: &Actor,
    action: &'static str,
    target: &Target,
    changed: &[&'static str],
    outcome: Outcome,
) -> Result<(), CoreError> {
    let mut tx = pool.begin().await?;
    record(&mut tx, actor, action, target, changed, outcome).await?;
    tx.commit().await?;
    Ok(())
}
